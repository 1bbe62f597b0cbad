"""dynamodb-index-partitions: a Query on a secondary index reads its partition from a map kept
on every write, not every item of the table.

Test: TestQueryCostIsIndependentOfTheTable. Kind: cost.

Table.query walks and sorts every item of the table for a query on a secondary index, and
keeps the index partition's. Here each index has a map of its partitions (the values of its
hash key attributes -> {table key -> item}), built from the table's items at its first query
and kept up to date by every write (shared.ItemHooks.after_change: put, delete, update in
place, batch writes, transactions and their rollback); a query on the index hands moto's
query that partition's items through shared.QueryHooks.index_partition.
"""
from patches import shared

KIND = "cost"


class IndexPartitions:
    """A secondary index's partitions, for the items that have all its hash key attributes.
    `where` remembers each item's partition, so that a change of its index key moves it."""

    def __init__(self, index, table):
        self.index = index
        self.attrs = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
        self.partitions = {}
        self.where = {}
        for item in shared.every_item(table):
            self.update((item.hash_key, item.range_key), item)

    def update(self, key, item):
        new = None
        if item is not None:
            new = tuple(item.attrs.get(a) for a in self.attrs)
            if any(v is None for v in new):
                new = None
        old = self.where.get(key)
        if old is not None and old != new:
            partition = self.partitions[old]
            del partition[key]
            if not partition:
                del self.partitions[old]
        if new is None:
            self.where.pop(key, None)
        else:
            self.partitions.setdefault(new, {})[key] = item
            self.where[key] = new


def _index_partitions(table, index):
    """The index's partitions, built from the table's items on first use (and again for an
    index deleted and created anew under the same name)."""
    built = shared.table_state(table).setdefault("index_partitions", {})
    found = built.get(index.name)
    if found is None or found.index is not index:
        found = built[index.name] = IndexPartitions(index, table)
    return found


def _changed(table, hash_key, range_key):
    built = shared.table_state(table).get("index_partitions")
    if built:
        item = shared.stored(table, hash_key, range_key)
        for partitions in built.values():
            partitions.update((hash_key, range_key), item)


def _index_partition(table, index, hash_key_conditions):
    conditions = dict(hash_key_conditions or [])
    if len(conditions) != len(hash_key_conditions or []):
        return None
    partitions = _index_partitions(table, index)
    if set(conditions) != set(partitions.attrs):
        return None
    partition = tuple(conditions[a] for a in partitions.attrs)
    return partition, lambda: list(partitions.partitions.get(partition, {}).items())


def apply():
    shared.install_item_hooks()
    shared.install_query()
    shared.ItemHooks.after_change.append(_changed)
    shared.QueryHooks.index_partition = _index_partition
