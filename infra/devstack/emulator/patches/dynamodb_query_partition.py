"""dynamodb-query-partition: a Query on the table's key reads its partition, not every item of
the table.

Test: TestQueryCostIsIndependentOfTheTable. Kind: cost.

Table.query takes its candidates from all_items(), every item of the table sorted by table
key, and keeps the queried partition's. Here a query on the table's key hands moto's query
the items of its partition (table.items[hash key]) through shared.QueryHooks.table_partition.
"""
from patches import shared

KIND = "cost"


def _table_partition(table, hash_key):
    if hash_key is None:
        return None

    def pairs():
        found = table.items.get(hash_key)
        if not found:
            return []
        if table.has_range_key:
            return [((hash_key, r), item) for r, item in found.items()]
        return [((hash_key, None), found)]

    return hash_key, pairs


def apply():
    shared.install_item_hooks()
    shared.install_query()
    shared.QueryHooks.table_partition = _table_partition
