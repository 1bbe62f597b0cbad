"""What several patches of the series share: the one wrapper of each moto method that more
than one patch extends, with its extension points, and the state the patches keep per table.

A patch never replaces a method another patch also needs. It registers with the wrapper here
instead (appends a hook, or sets an extension point), and the wrapper is installed once, by
the first patch that needs it (install_*). With no patch registered, each wrapper does what
moto does.

The state a patch keeps for a table lives in one dict per table (table_state), under the
patch's own key:
  index_partitions  dynamodb-index-partitions: index name -> IndexPartitions
  sorted_partitions dynamodb-sorted-partitions: index name (None: the table) -> KeptOrder
  sorted_table      dynamodb-scan-pages: the table's items in scan order, until the next write
  narrowed_items    the query or scan being served: the items all_items() answers it
and what it keeps for a queue in one dict per queue (queue_state):
  recent_deduplication_ids  sqs-queue-depth: deduplication id -> its message, oldest first
  changes                   sqs-receive-waits: how many changes the queue has had
  delay_ends                sqs-receive-waits: when its delayed messages become deliverable (a heap)
"""
import bisect
import contextlib
import functools
import inspect
import threading
import time

import moto.sqs.models as sqs_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import GlobalSecondaryIndex, Table


def installs_once(install):
    """Makes an install_* function do its work at its first call only."""
    done = []

    @functools.wraps(install)
    def call():
        if not done:
            done.append(True)
            install()

    return call


# ---------------------------------------------------------------- every service

def serialize_backend(backend_class):
    """Makes the backend's operations take turns; returns the lock they share. It wraps the
    methods the class has when called: patches that replace them must come before."""
    lock = threading.RLock()

    def serialized(method):
        @functools.wraps(method)
        def call(*args, **kwargs):
            with lock:
                return method(*args, **kwargs)

        return call

    for name, member in list(vars(backend_class).items()):
        if inspect.isfunction(member) and not name.startswith("__"):
            setattr(backend_class, name, serialized(member))
    return lock


# ---------------------------------------------------------------- DynamoDB: stored items
#
# A table's items live in table.items: hash key -> item, or hash key -> {range key -> item}
# when the table has a range key.

def table_state(table):
    """The patches' state for the table (see the module's docstring for its keys)."""
    return table.__dict__.setdefault("_patch_state", {})


def stored(table, hash_key, range_key):
    """The item stored under the key, or None; unlike Table.get_item, it adds no empty
    partition to table.items for a hash key it does not find."""
    found = table.items.get(hash_key)
    if found is None or not table.has_range_key:
        return found
    return found.get(range_key)


def every_item(table):
    """Every item stored in the table, in no particular order."""
    for found in table.items.values():
        yield from found.values() if table.has_range_key else [found]


def place(table, hash_key, range_key, item):
    """Stores item under the key, or removes what is there when item is None."""
    if item is not None:
        if table.has_range_key:
            table.items[hash_key][range_key] = item
        else:
            table.items[hash_key] = item
    elif not table.has_range_key:
        table.items.pop(hash_key, None)
    elif hash_key in table.items:
        table.items[hash_key].pop(range_key, None)
        if not table.items[hash_key]:
            del table.items[hash_key]
    changed(table, hash_key, range_key)


def key_of(table, attrs):
    """The table key (hash, range) in a key or an item's attributes, or None when it lacks
    one of them (moto then fails the request itself)."""
    if table.hash_key_attr not in attrs or (table.has_range_key and table.range_key_attr not in attrs):
        return None
    range_key = DynamoType(attrs[table.range_key_attr]) if table.has_range_key else None
    return DynamoType(attrs[table.hash_key_attr]), range_key


def order(value):
    """What DynamoType's comparisons compare: cast_value (a string's is the string)."""
    return value.value if value.type == "S" else value.cast_value


# ---------------------------------------------------------------- DynamoDB: item writes
#
# Every change of an item goes through Table.put_item, Table.delete_item or
# DynamoDBBackend.update_item (which changes the stored item in place), or place() (a
# transaction's rollback). One wrapper of each calls, around moto's:
#   before_touch(table, key)               before the item under key is read for a write or written
#   after_change(table, hash_key, range_key) after what is stored under the key may have changed
# Reads and deletes of a missing key add no empty partition (moto's lookups go through a
# defaultdict, which would keep one for every key ever missed).

class ItemHooks:
    before_touch = []
    after_change = []


def changed(table, hash_key, range_key):
    for hook in ItemHooks.after_change:
        hook(table, hash_key, range_key)


def _touch(table, key):
    for hook in ItemHooks.before_touch:
        hook(table, key)


@installs_once
def install_item_hooks():
    table_get_item, table_put_item, table_delete_item = Table.get_item, Table.put_item, Table.delete_item
    backend_update_item = DynamoDBBackend.update_item

    def get_item(self, hash_key, range_key=None, projection_expression=None):
        _touch(self, (hash_key, range_key))
        if self.has_range_key and range_key and hash_key not in self.items:
            return None
        return table_get_item(self, hash_key, range_key, projection_expression)

    def put_item(self, item_attrs, *args, **kwargs):
        key = key_of(self, item_attrs)
        if key is not None:
            _touch(self, key)
        item = table_put_item(self, item_attrs, *args, **kwargs)
        changed(self, item.hash_key, item.range_key)
        return item

    def delete_item(self, hash_key, range_key):
        if self.has_range_key and range_key and hash_key not in self.items:
            return None
        _touch(self, (hash_key, range_key))
        item = table_delete_item(self, hash_key, range_key)
        if item is not None:
            partition = self.items.get(hash_key) if self.has_range_key else None
            if partition is not None and not partition:
                del self.items[hash_key]
            changed(self, hash_key, range_key)
        return item

    def update_item(self, table_name, key, *args, **kwargs):
        try:
            return backend_update_item(self, table_name, key, *args, **kwargs)
        finally:
            # The item was changed in place, created, or (by an update that failed half-way)
            # half changed: take it as it is now.
            try:
                table = self.get_table(table_name)
            except Exception:  # no such table: moto has answered so
                table = None
            found = key_of(table, key) if isinstance(table, Table) else None
            if found is not None:
                changed(table, *found)

    Table.get_item, Table.put_item, Table.delete_item = get_item, put_item, delete_item
    DynamoDBBackend.update_item = update_item


# ---------------------------------------------------------------- DynamoDB: reads
#
# Table.query and Table.scan take their candidates from Table.all_items(), every item of
# the table sorted by table key. One wrapper of all_items() answers, while a query or scan
# is served (narrowed), the items it narrowed the request to.

@installs_once
def install_narrowing():
    all_items = Table.all_items

    def all_items_of_the_request(self):
        narrowed_items = table_state(self).get("narrowed_items")
        return narrowed_items if narrowed_items is not None else all_items(self)

    Table.all_items = all_items_of_the_request


@contextlib.contextmanager
def narrowed(table, items):
    """all_items() answers items (None: moto's own) while the block runs."""
    state = table_state(table)
    state["narrowed_items"] = items
    try:
        yield
    finally:
        state["narrowed_items"] = None


def sort_keys(table, index):
    """The hash and range attributes Table.query sorts by, as it computes them."""
    if index is None:
        return [table.hash_key_attr], [table.range_key_attr]
    hash_attrs = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
    range_attrs = [k["AttributeName"] for k in index.schema if k["KeyType"] == "RANGE"]
    if range_attrs:
        range_attrs.append(table.range_key_attr)
    elif isinstance(index, GlobalSecondaryIndex) and table.range_key_attr:
        range_attrs = [table.range_key_attr, table.range_key_attr]
    else:
        range_attrs = [table.hash_key_attr, table.range_key_attr]
    return hash_attrs + [table.hash_key_attr], range_attrs


class SortedPartition:
    """A partition's items in the order a query sorts them in: by the attributes `attrs`
    (the query leaves out items without them), compared as DynamoType compares them
    (cast_value; a string's is the string). discard and put keep it in order item by item."""

    def __init__(self, attrs, items):
        self.attrs = attrs
        self.order = {}  # table key -> its sort values
        entries = []
        for key, item in items:
            values = self._values(item)
            if values is not None:
                self.order[key] = values
                entries.append((values, key, item))
        entries.sort(key=lambda e: e[0])
        self.values = [e[0] for e in entries]
        self.keys = [e[1] for e in entries]
        self.items = [e[2] for e in entries]

    def _values(self, item):
        if not all(a in item.attrs for a in self.attrs):
            return None
        return tuple(order(item.attrs[a]) for a in self.attrs)

    def _position(self, key, values):
        i = bisect.bisect_left(self.values, values)
        while self.keys[i] != key:  # among equal values (the table key makes them unique)
            i += 1
        return i

    def discard(self, key):
        values = self.order.pop(key, None)
        if values is not None:
            i = self._position(key, values)
            del self.values[i], self.keys[i], self.items[i]

    def put(self, key, item):
        values = self._values(item)
        if values is not None:
            i = bisect.bisect_right(self.values, values)
            self.values.insert(i, values)
            self.keys.insert(i, key)
            self.items.insert(i, item)
            self.order[key] = values


def sorted_partition(table, index, pairs):
    """The (table key, item) pairs of a partition of the table (index None) or of an index,
    in the order the query sorts them in."""
    hash_attrs, range_attrs = sort_keys(table, index)
    return SortedPartition(table._generate_attr_to_sort_by(hash_attrs, range_attrs), pairs)


# The one wrapper of Table.query hands moto's query the partition it reads, already in its
# order (sorting sorted items is one pass), without the items before an ExclusiveStartKey
# (found by bisection, not one by one) and, when every item is a result, without those
# past one beyond its Limit; the query itself is moto's. Its extension points:
#   table_partition(table, hash_key) -> (partition, pairs()) or None
#       a query on the table's key (dynamodb-query-partition)
#   index_partition(table, index, hash_key_conditions) -> (partition, pairs()) or None
#       a query on a secondary index (dynamodb-index-partitions)
#   in_order(table, index, partition, pairs) -> SortedPartition
#       the partition's order, kept from query to query (dynamodb-sorted-partitions);
#       without it each query sorts its partition
# None from a partition hook, or no hook, leaves the query to moto (every item of the table).

class QueryHooks:
    table_partition = None
    index_partition = None
    in_order = None


def _query_items(table, hash_key, index_name, hash_key_conditions, start_key, forward, take):
    """The items the query can return, in its order (at most `take` of them when it is not
    None), or None to leave it to moto."""
    if not index_name:
        index = None
        found = QueryHooks.table_partition(table, hash_key) if QueryHooks.table_partition else None
    else:
        index = next((i for i in table.all_indexes() if i.name == index_name), None)
        found = None
        if index is not None and QueryHooks.index_partition:
            found = QueryHooks.index_partition(table, index, hash_key_conditions)
    if found is None:
        return None
    partition, pairs = found
    if QueryHooks.in_order:
        in_order = QueryHooks.in_order(table, index, partition, pairs)
    else:
        in_order = sorted_partition(table, index, pairs())
    items = in_order.items
    lo, hi = 0, len(items)
    if start_key is not None and items:
        hash_attrs, range_attrs = sort_keys(table, index)

        # The items the query skips are those at or before the start key in its
        # direction: a prefix of the sorted items going forward, a suffix going back.
        def skipped(i):
            return table._item_comes_before_dct(items[i], start_key, hash_attrs, range_attrs, forward)

        while lo < hi:
            mid = (lo + hi) // 2
            if skipped(mid) == forward:
                lo = mid + 1
            else:
                hi = mid
        lo, hi = (lo, len(items)) if forward else (0, lo)
    if take is not None:
        lo, hi = (lo, min(hi, lo + take)) if forward else (max(lo, hi - take), hi)
    return items[lo:hi]


@installs_once
def install_query():
    install_narrowing()
    table_query = Table.query

    def query(self, hash_key, range_comparison, range_objs, limit, exclusive_start_key, scan_index_forward,
              projection_expressions, index_name=None, consistent_read=False, filter_expression=None,
              hash_key_conditions=None, range_key_conditions=None, **filter_kwargs):
        forward = scan_index_forward is not False
        take = None
        if limit and not range_key_conditions and range_comparison is None and not filter_kwargs:
            # Every item is a result then, and the query looks at one past its Limit (to
            # answer LastEvaluatedKey) and no further.
            take = limit + 1
        items = _query_items(self, hash_key, index_name, hash_key_conditions, exclusive_start_key, forward, take)
        with narrowed(self, items):
            return table_query(self, hash_key, range_comparison, range_objs, limit, exclusive_start_key,
                               scan_index_forward, projection_expressions, index_name, consistent_read,
                               filter_expression, hash_key_conditions=hash_key_conditions,
                               range_key_conditions=range_key_conditions, **filter_kwargs)

    Table.query = query


# ---------------------------------------------------------------- SQS

def queue_state(queue):
    """The patches' state for the queue (see the module's docstring for its keys)."""
    return queue.__dict__.setdefault("_patch_state", {})


#
# A queue's message changes go through Queue.add_message (a send), Queue.delete_message
# and SQSBackend.change_message_visibility. One wrapper of each has, as extension points:
#   add(queue, message, moto_add)           stores the message in place of moto (sqs-queue-depth)
#   delete(queue, receipt_handle, moto_delete)                           (sqs-queue-depth)
#   change_visibility(backend, queue_name, receipt_handle, timeout, moto_change)  (sqs-queue-depth)
#   after_add(queue, message)               after a send
#   after_change(queue)                     after a send, a delete or a visibility change,
#                                           failed or not (sqs-receive-waits)

class QueueHooks:
    add = None
    delete = None
    change_visibility = None
    after_add = []
    after_change = []


def _queue_changed(queue):
    for hook in QueueHooks.after_change:
        hook(queue)


@installs_once
def install_queue_hooks():
    moto_add, moto_delete = sqs_models.Queue.add_message, sqs_models.Queue.delete_message
    moto_change = sqs_models.SQSBackend.change_message_visibility

    def add_message(self, message):
        try:
            if QueueHooks.add:
                QueueHooks.add(self, message, moto_add)
            else:
                moto_add(self, message)
            for hook in QueueHooks.after_add:
                hook(self, message)
        finally:
            _queue_changed(self)

    def delete_message(self, receipt_handle):
        try:
            if QueueHooks.delete:
                return QueueHooks.delete(self, receipt_handle, moto_delete)
            return moto_delete(self, receipt_handle)
        finally:
            _queue_changed(self)

    def change_message_visibility(self, queue_name, receipt_handle, visibility_timeout):
        try:
            if QueueHooks.change_visibility:
                return QueueHooks.change_visibility(self, queue_name, receipt_handle, visibility_timeout, moto_change)
            return moto_change(self, queue_name, receipt_handle, visibility_timeout)
        finally:
            if QueueHooks.after_change:
                try:
                    queue = self.get_queue(queue_name)
                except Exception:  # no such queue: moto has answered so
                    queue = None
                if queue is not None:
                    _queue_changed(queue)

    sqs_models.Queue.add_message = add_message
    sqs_models.Queue.delete_message = delete_message
    sqs_models.SQSBackend.change_message_visibility = change_message_visibility


# A receive walks the queue once, outside any wait (sqs-serial). When it found nothing and
# its long poll has time left, it waits: ReceiveHooks.changes(queue) counts the queue's
# changes, read with the walk; ReceiveHooks.wait(queue, seen, timeout) returns when the count
# moves on from seen or the timeout passes (sqs-receive-waits). Without them it does not
# wait there. Either way 20 ms pass before the next walk.

class ReceiveHooks:
    changes = staticmethod(lambda queue: 0)
    wait = None


RECEIVE_PAUSE = 0.02


def receive_pause(deadline):
    time.sleep(max(0.0, min(deadline - time.time(), RECEIVE_PAUSE)))
