"""dynamodb-sorted-partitions: a Query keeps each partition it has read in its order, so one
with a Limit reads as many items as it answers, not its whole partition sorted anew.

Test: TestLimitedQueryCostIsIndependentOfThePartition. Kind: cost.

Extends the two query patches (dynamodb-query-partition, dynamodb-index-partitions): without
it each query sorts the partition it reads. Here a partition's order (shared.SortedPartition)
is kept from its first query on (shared.QueryHooks.in_order), and every write puts its item
in place (shared.ItemHooks.after_change, a bisection of the partition's sort values), so that
a page of a large partition (a listing of thousands of customers) costs its page.
"""
from patches import shared

KIND = "cost"


class KeptOrder:
    """The sorted partitions of the table (index None) or of one index, for the partitions
    queried so far; `where` remembers the partition of each item in them."""

    def __init__(self, table, index):
        self.index = index
        if index is None:
            self.attrs = None  # the table's partition is the hash key
        else:
            self.attrs = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
        self.partitions = {}
        self.where = {}

    def partition_of(self, key, item):
        if item is None:
            return None
        if self.attrs is None:
            return key[0]
        values = tuple(item.attrs.get(a) for a in self.attrs)
        return None if any(v is None for v in values) else values

    def update(self, key, item):
        old = self.where.pop(key, None)
        found = self.partitions.get(old) if old is not None else None
        if found is not None:
            found.discard(key)
            if not found.keys:  # built again by its next query
                del self.partitions[old]
        new = self.partition_of(key, item)
        if new is not None and new in self.partitions:
            self.partitions[new].put(key, item)
            self.where[key] = new


def _kept(table, index):
    built = shared.table_state(table).setdefault("sorted_partitions", {})
    name = None if index is None else index.name
    kept = built.get(name)
    if kept is None or kept.index is not index:
        kept = built[name] = KeptOrder(table, index)
    return kept


def _in_order(table, index, partition, pairs):
    kept = _kept(table, index)
    found = kept.partitions.get(partition)
    if found is None:
        listed = pairs()
        found = shared.sorted_partition(table, index, listed)
        if found.keys:  # an empty partition is not kept: queries of missing keys would pile up
            kept.partitions[partition] = found
            for key, _ in listed:
                kept.where[key] = partition
    return found


def _changed(table, hash_key, range_key):
    built = shared.table_state(table).get("sorted_partitions")
    if built:
        item = shared.stored(table, hash_key, range_key)
        for kept in built.values():
            kept.update((hash_key, range_key), item)


def apply():
    shared.install_item_hooks()
    shared.ItemHooks.after_change.append(_changed)
    shared.QueryHooks.in_order = _in_order
