"""Runs moto's server (what the moto_server script runs) after the patches below, one line
each: the moto behaviour it changes, and the test in infra/devstack/emulator that fails on plain moto.

- dynamodb-serial: DynamoDB operations run one at a time, not at once (TestTransactionsWhileOthersWrite)
- sqs-serial: SQS operations run one at a time, a long poll waiting outside (TestConcurrentReceivesKeepFIFOGroupsApart)
- dynamodb-transaction-items: TransactWriteItems saves and restores the items it touches, not copies of the tables it names (TestTransactionCostIsIndependentOfTheTable)
- dynamodb-query-partition: a Query on the table's key reads its partition, not every item of the table (TestQueryCostIsIndependentOfTheTable)
- dynamodb-index-partitions: a Query on a secondary index reads its partition from a map kept on every write, not every item of the table (TestQueryCostIsIndependentOfTheTable)
- dynamodb-sorted-partitions: a Query keeps each partition it has read in its order, so one with a Limit reads as many items as it answers, not its whole partition sorted anew (TestLimitedQueryCostIsIndependentOfThePartition)
- dynamodb-scan-pages: a Scan of the table keeps the table's order from page to page while nothing is written, so a page costs its items, not a sort of the table (TestScanPageCostIsIndependentOfTheTable)
- dynamodb-answers: an answer's attribute values are written from the member they have, not by trying each of AttributeValue's ten members (TestAnswersCostLittlePerAttribute)
- sqs-receive-waits: a long poll that finds nothing deliverable waits for a send, a delete, a visibility change or the end of a message's delay, not 20 ms, before it walks the queue again (TestWaitingReceivesCostNothingBehindABusyGroup, TestLongPollWakesWhenADelayEnds)
- sqs-queue-depth: a send, receive, delete or visibility change does not walk the queue's messages (TestQueueCostIsIndependentOfItsDepth)
- gc-frozen-data: after each full pass of Python's cycle collector what the server holds is frozen, so the next full pass walks what came since, not every object of the data held (TestFullCollectionsWalkWhatCameSince)
- weak-instances: moto's registry of every model instance it made holds them weakly, not for as long as the server runs (TestMemoryStaysFlatWhileRequestsRepeat)

Plain moto answers requests on many threads without guarding its backends, and the local
stack's pollers, workers and API calls reach it at once: a TransactWriteItems that copies a
table while another request writes to it fails with a 500, and two receives at once can
both take messages of one FIFO group. Several of its costs grow with the data held, not
with the request: a transaction copies whole tables, a query sorts or walks the whole
table, a send or a receive walks the whole queue. The patches change what moto walks,
copies and keeps, never what it answers (TestPatchedMotoAnswersAsPlainMoto compares every
answer with plain moto's; docs/local-stack.md). They reach into moto's internals, so the
server refuses to start with any moto but the one they were written for.
"""
import functools
import importlib.metadata
import inspect
import sys
import threading
import time

MOTO_VERSION = "5.2.5"  # as pinned in infra/requirements.txt

_installed = importlib.metadata.version("moto")
if _installed != MOTO_VERSION:
    sys.exit(f"motoserver.py: its patches are written for moto {MOTO_VERSION}, but moto {_installed} "
             "is installed: check each patch against the new version (docs/local-stack.md) before moving the pin")

import bisect  # noqa: E402
import collections  # noqa: E402
import gc  # noqa: E402
import heapq  # noqa: E402
import copy  # noqa: E402
import types  # noqa: E402
import weakref  # noqa: E402

import moto.dynamodb.models as dynamodb_models  # noqa: E402
from moto.core.common_models import BaseModel  # noqa: E402
from moto.core.serialize import BaseJSONSerializer  # noqa: E402
import moto.sqs.models as sqs_models  # noqa: E402
from moto.dynamodb.models import DynamoDBBackend  # noqa: E402
from moto.dynamodb.models.dynamo_type import DynamoType  # noqa: E402
from moto.dynamodb.models.table import GlobalSecondaryIndex, Table  # noqa: E402
from moto.server import main  # noqa: E402


def _serialize_backend(backend_class):
    """Makes the backend's operations take turns; returns the lock they share."""
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


# ---------------------------------------------------------------- every service
#
# weak-instances
#
# moto keeps every instance of its models (BaseModel: DynamoDB items, SQS messages, S3
# keys, ...) in a list of its class, instances_tracked, read only by its /moto-api/ data
# view and its reset: every item ever written, every copy a query, an update or a
# transaction makes, every message and every copy of it a receive hands out, for as long
# as the server runs. The list becomes one that holds them weakly.


class _WeakInstances:
    def __init__(self, instances=()):
        self._refs = weakref.WeakValueDictionary()
        for instance in instances:
            self.append(instance)

    def append(self, instance):
        self._refs[id(instance)] = instance

    def __iter__(self):
        return iter(list(self._refs.values()))

    def __len__(self):
        return len(self._refs)


_base_model_new = BaseModel.__new__


def _new_weakly_tracked(cls, *args, **kwargs):
    # A class's list is replaced at its first instance (and again after moto's reset,
    # which sets a new list).
    if type(cls.__dict__.get("instances_tracked")) is list:
        cls.instances_tracked = _WeakInstances(cls.instances_tracked)
    return _base_model_new(cls, *args, **kwargs)


BaseModel.__new__ = staticmethod(_new_weakly_tracked)


# gc-frozen-data
#
# Python's cycle collector walks every object it tracks in a full pass, which it makes each
# time the long-lived objects have grown by a quarter: with a table's items held (a dict of
# DynamoType objects each), the server stopped for 0.4 s at 2.5 million objects and for
# seconds beside a 10,000-customer import, every request waiting. Once a full pass has
# walked more than _FREEZE_AT objects, what survived it is frozen (gc.freeze): later passes
# walk the objects made since, at most about that many. Frozen objects are still freed when
# their last reference goes (a replaced or deleted item); only a reference cycle alive at a
# freeze (an answer being built) and dropped later stays, which is why the server freezes
# once per _FREEZE_AT new objects and not after every pass.

_FREEZE_AT = 300_000


def _freeze_after_full_pass(phase, info):
    if phase == "stop" and info["generation"] == 2 and len(gc.get_objects(generation=2)) > _FREEZE_AT:
        gc.freeze()


gc.callbacks.append(_freeze_after_full_pass)

# ---------------------------------------------------------------- DynamoDB
#
# A table's items live in table.items: hash key -> item, or hash key -> {range key -> item}
# when the table has a range key. Every change of an item goes through Table.put_item,
# Table.delete_item or DynamoDBBackend.update_item (which changes the stored item in place),
# or a transaction's rollback (_place); each then calls _changed, which keeps the index
# partitions of dynamodb-index-partitions up to date.


def _stored(table, hash_key, range_key):
    """The item stored under the key, or None; unlike Table.get_item, it adds no empty
    partition to table.items for a hash key it does not find."""
    found = table.items.get(hash_key)
    if found is None or not table.has_range_key:
        return found
    return found.get(range_key)


def _every_item(table):
    """Every item stored in the table, in no particular order."""
    for found in table.items.values():
        yield from found.values() if table.has_range_key else [found]


def _place(table, hash_key, range_key, item):
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
    _changed(table, hash_key, range_key)


def _key_of(table, attrs):
    """The table key (hash, range) in a key or an item's attributes, or None when it lacks
    one of them (moto then fails the request itself)."""
    if table.hash_key_attr not in attrs or (table.has_range_key and table.range_key_attr not in attrs):
        return None
    range_key = DynamoType(attrs[table.range_key_attr]) if table.has_range_key else None
    return DynamoType(attrs[table.hash_key_attr]), range_key


class _IndexPartitions:
    """A secondary index's partitions: the values of its hash key attributes -> {table key
    -> item}, for the items that have them all. `where` remembers each item's partition, so
    that a change of its index key moves it."""

    def __init__(self, index, table):
        self.index = index
        self.attrs = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
        self.partitions = {}
        self.where = {}
        self.sorted = {}  # partition -> _SortedPartition, for the partitions queried so far
        for item in _every_item(table):
            self.update((item.hash_key, item.range_key), item)

    def update(self, key, item):
        new = None
        if item is not None:
            new = tuple(item.attrs.get(a) for a in self.attrs)
            if any(v is None for v in new):
                new = None
        old = self.where.get(key)
        if old is not None and old in self.sorted:
            self.sorted[old].discard(key)
        if old is not None and old != new:
            partition = self.partitions[old]
            del partition[key]
            if not partition:
                del self.partitions[old]
                self.sorted.pop(old, None)
        if new is None:
            self.where.pop(key, None)
        else:
            self.partitions.setdefault(new, {})[key] = item
            self.where[key] = new
            if new in self.sorted:
                self.sorted[new].put(key, item)


def _index_partitions(table, index):
    """The index's partitions, built from the table's items on first use (and again for an
    index deleted and created anew under the same name)."""
    built = table.__dict__.setdefault("_index_partitions", {})
    found = built.get(index.name)
    if found is None or found.index is not index:
        found = built[index.name] = _IndexPartitions(index, table)
    return found


def _changed(table, hash_key, range_key):
    """Brings the index partitions and the sorted partitions built so far up to date with
    what is now stored under the key, and forgets the table's order kept for scans."""
    table.__dict__.pop("_sorted_table", None)  # dynamodb-scan-pages
    built = table.__dict__.get("_index_partitions")
    in_order = table.__dict__.get("_sorted_partitions", {}).get(hash_key)
    if built or in_order is not None:
        item = _stored(table, hash_key, range_key)
        for partitions in (built or {}).values():
            partitions.update((hash_key, range_key), item)
        if in_order is not None:
            in_order.discard((hash_key, range_key))
            if item is not None:
                in_order.put((hash_key, range_key), item)
            elif hash_key not in table.items:
                del table._sorted_partitions[hash_key]


# dynamodb-transaction-items
#
# moto's transact_write_items deep-copies each table the transaction names (once per item
# of the transaction) and, when the transaction fails, puts the copies back in place of
# the tables. While it runs, the copy of a table is a marker standing for the table, and
# the first read or write of each item saves a copy of that item (update_item changes items
# in place, so a reference would not do). When moto has put markers back, the tables return
# and their saved items are restored: the same rollback, at the cost of the items touched.


class _TableMarker:
    def __init__(self, table):
        self.table = table
        self.stream_length = len(table.stream_shard.items) if table.stream_shard is not None else 0


class _SavedItems:
    def __init__(self):
        self.items = {}

    def save(self, table, key):
        if (id(table), key) not in self.items:
            self.items[id(table), key] = (table, key, copy.deepcopy(_stored(table, *key)))

    def restore(self, marker):
        table = marker.table
        for saved, key, item in self.items.values():
            if saved is table:
                _place(table, *key, item)
        if table.stream_shard is not None:
            del table.stream_shard.items[marker.stream_length:]


class _Transaction(threading.local):
    saved = None  # the running transaction's _SavedItems, in its thread


_transaction = _Transaction()


def _deepcopy(value, memo=None):
    if _transaction.saved is not None and isinstance(value, Table):
        return _TableMarker(value)
    return copy.deepcopy(value, memo)


# moto.dynamodb.models uses the copy module for copy.deepcopy alone.
dynamodb_models.copy = types.SimpleNamespace(deepcopy=_deepcopy)

_transact_write_items = DynamoDBBackend.transact_write_items


def _transact_write_items_saving_items(self, transact_items):
    _transaction.saved = saved = _SavedItems()
    try:
        return _transact_write_items(self, transact_items)
    finally:
        _transaction.saved = None
        for name, table in list(self.tables.items()):
            if isinstance(table, _TableMarker):
                self.tables[name] = table.table
                saved.restore(table)


DynamoDBBackend.transact_write_items = _transact_write_items_saving_items

# The item changes, each saving the item first inside a transaction and telling the index
# partitions afterwards; reads and deletes of a missing key add no empty partition (moto's
# lookups go through a defaultdict, which would keep one for every key ever missed).

_table_get_item = Table.get_item
_table_put_item = Table.put_item
_table_delete_item = Table.delete_item
_backend_update_item = DynamoDBBackend.update_item


def _get_item(self, hash_key, range_key=None, projection_expression=None):
    if _transaction.saved is not None:
        _transaction.saved.save(self, (hash_key, range_key))
    if self.has_range_key and range_key and hash_key not in self.items:
        return None
    return _table_get_item(self, hash_key, range_key, projection_expression)


def _put_item(self, item_attrs, *args, **kwargs):
    key = _key_of(self, item_attrs)
    if _transaction.saved is not None and key is not None:
        _transaction.saved.save(self, key)
    item = _table_put_item(self, item_attrs, *args, **kwargs)
    _changed(self, item.hash_key, item.range_key)
    return item


def _delete_item(self, hash_key, range_key):
    if self.has_range_key and range_key and hash_key not in self.items:
        return None
    if _transaction.saved is not None:
        _transaction.saved.save(self, (hash_key, range_key))
    item = _table_delete_item(self, hash_key, range_key)
    if item is not None:
        partition = self.items.get(hash_key) if self.has_range_key else None
        if partition is not None and not partition:
            del self.items[hash_key]
        _changed(self, hash_key, range_key)
    return item


def _update_item(self, table_name, key, *args, **kwargs):
    try:
        return _backend_update_item(self, table_name, key, *args, **kwargs)
    finally:
        # The item was changed in place, created, or (by an update that failed half-way)
        # half changed: take it as it is now.
        try:
            table = self.get_table(table_name)
        except Exception:  # no such table: moto has answered so
            table = None
        found = _key_of(table, key) if isinstance(table, Table) else None
        if found is not None:
            _changed(table, *found)


Table.get_item = _get_item
Table.put_item = _put_item
Table.delete_item = _delete_item
DynamoDBBackend.update_item = _update_item


# dynamodb-query-partition, dynamodb-index-partitions and dynamodb-sorted-partitions
#
# Table.query takes its candidates from all_items(), every item of the table sorted by
# table key, and keeps the queried partition's. For the query's duration all_items()
# answers the partition's items alone (from table.items, or from the index's partitions),
# already in the order the query sorts them in (sorting sorted items is one pass), without
# the items before an ExclusiveStartKey, which the query would skip one by one, and, when
# every item is a result, without those past its Limit; the query itself is moto's. The
# order of a partition is kept from its first query on (_SortedPartition), so that a page
# of a large partition (a listing of thousands of customers) costs its page, not a sort of
# the partition.

_all_items = Table.all_items
_table_query = Table.query


def _all_items_of_the_request(self):
    narrowed = self.__dict__.get("_narrowed_items")
    return narrowed if narrowed is not None else _all_items(self)


def _sort_keys(table, index):
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


def _order(value):
    """What DynamoType's comparisons compare: cast_value (a string's is the string)."""
    return value.value if value.type == "S" else value.cast_value


class _SortedPartition:
    """A partition's items in the order a query sorts them in: by the attributes `attrs`
    (the query leaves out items without them), compared as DynamoType compares them
    (cast_value; a string's is the string). Kept up to date item by item by _changed, so
    a query does not sort its partition again."""

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
        return tuple(_order(item.attrs[a]) for a in self.attrs)

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


def _table_partition_in_order(table, hash_key):
    """The table partition's _SortedPartition, built on its first query; None if it is empty."""
    found = table.items.get(hash_key)
    if not found:
        return None
    if table.has_range_key:
        pairs = (((hash_key, r), item) for r, item in found.items())
    else:
        pairs = [((hash_key, None), found)]
    return _kept_in_order(table.__dict__.setdefault("_sorted_partitions", {}), hash_key, table, None, pairs)


def _index_partition_in_order(table, index, partitions, partition):
    """The index partition's _SortedPartition, built on its first query; None if it is empty."""
    found = partitions.partitions.get(partition)
    if not found:
        return None
    return _kept_in_order(partitions.sorted, partition, table, index, found.items())


def _kept_in_order(built, key, table, index, pairs):
    in_order = built.get(key)
    if in_order is None:
        hash_attrs, range_attrs = _sort_keys(table, index)
        in_order = built[key] = _SortedPartition(table._generate_attr_to_sort_by(hash_attrs, range_attrs), pairs)
    return in_order


def _query_items(table, hash_key, index_name, hash_key_conditions, start_key, forward, take):
    """The items the query can return, in its order (at most `take` of them when it is not
    None), or None to leave it to moto."""
    if not index_name:
        if hash_key is None:
            return None
        index = None
        in_order = _table_partition_in_order(table, hash_key)
    else:
        index = next((i for i in table.all_indexes() if i.name == index_name), None)
        conditions = dict(hash_key_conditions or [])
        if index is None or len(conditions) != len(hash_key_conditions or []):
            return None
        partitions = _index_partitions(table, index)
        if set(conditions) != set(partitions.attrs):
            return None
        in_order = _index_partition_in_order(table, index, partitions, tuple(conditions[a] for a in partitions.attrs))
    if in_order is None:
        return []
    items = in_order.items
    lo, hi = 0, len(items)
    if start_key is not None and items:
        hash_attrs, range_attrs = _sort_keys(table, index)
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


def _query(self, hash_key, range_comparison, range_objs, limit, exclusive_start_key, scan_index_forward,
           projection_expressions, index_name=None, consistent_read=False, filter_expression=None,
           hash_key_conditions=None, range_key_conditions=None, **filter_kwargs):
    forward = scan_index_forward is not False
    take = None
    if limit and not range_key_conditions and range_comparison is None and not filter_kwargs:
        # Every item is a result then, and the query looks at one past its Limit (to
        # answer LastEvaluatedKey) and no further.
        take = limit + 1
    self._narrowed_items = _query_items(self, hash_key, index_name, hash_key_conditions, exclusive_start_key, forward, take)
    try:
        return _table_query(self, hash_key, range_comparison, range_objs, limit, exclusive_start_key,
                            scan_index_forward, projection_expressions, index_name, consistent_read,
                            filter_expression, hash_key_conditions=hash_key_conditions,
                            range_key_conditions=range_key_conditions, **filter_kwargs)
    finally:
        self._narrowed_items = None


Table.all_items = _all_items_of_the_request
Table.query = _query

# dynamodb-scan-pages
#
# Table.scan sorts every item of the table (all_items()) for each page and then walks past
# the items before its ExclusiveStartKey: reading a table page by page costs a sort of the
# table per page. Here a scan of the table (not of an index) keeps the table's order from
# one page to the next while nothing is written (_changed drops it), and all_items()
# answers the items after the start key; the scan itself is moto's.

_table_scan = Table.scan


def _scan_items(table, start_key):
    """The table's items after start_key (all of them without one), in all_items() order."""
    attrs = [table.hash_key_attr] + ([table.range_key_attr] if table.has_range_key else [])
    kept = table.__dict__.get("_sorted_table")
    if kept is None:
        entries = sorted(((tuple(_order(item.attrs[a]) for a in attrs), item) for item in _every_item(table)),
                         key=lambda entry: entry[0])
        kept = table._sorted_table = ([e[0] for e in entries], [e[1] for e in entries])
    values, items = kept
    if start_key is None:
        return items
    if not all(a in start_key for a in attrs):
        return None  # moto answers the malformed key
    return items[bisect.bisect_right(values, tuple(_order(DynamoType(start_key[a])) for a in attrs)):]


def _scan(self, filters, limit, exclusive_start_key, filter_expression=None, index_name=None,
          consistent_read=False, projection_expression=None, segments=(None, None)):
    if not index_name:
        self._narrowed_items = _scan_items(self, exclusive_start_key)
    try:
        return _table_scan(self, filters, limit, exclusive_start_key, filter_expression, index_name,
                           consistent_read, projection_expression, segments=segments)
    finally:
        self._narrowed_items = None


Table.scan = _scan

# dynamodb-answers
#
# moto writes each attribute value of an answer through its generic serializer, which asks
# every one of AttributeValue's ten members (S, N, B, SS, ...) for itself in the value, each
# through its attribute picker: about a tenth of a millisecond per attribute, most of what a
# query or a batch read costs. Here an attribute value, and an item (a map of them), is
# written from the member it has, as the generic serializer writes that member: strings as
# strings, binary in base64, maps and lists member by member.


def _string(value):
    return str(value) if value not in (None, {}, []) else value


def _attribute_value(serializer, value):
    out = {}
    for member, v in value.items():
        if v is None:
            continue
        if member in ("S", "N"):
            out[member] = _string(v)
        elif member == "B":
            out[member] = serializer._base64(v)
        elif member in ("SS", "NS"):
            out[member] = [_string(x) for x in v]
        elif member == "BS":
            out[member] = [serializer._base64(x) for x in v]
        elif member == "M":
            out[member] = _attribute_map(serializer, v)
        elif member == "L":
            out[member] = [x if x is None else _attribute_value(serializer, x) for x in v]
        elif member in ("NULL", "BOOL"):
            out[member] = v
    return out


def _attribute_map(serializer, value):
    return {k: _attribute_value(serializer, v) for k, v in value.items() if v is not None}


def _dynamodb_value(serializer, value):
    return isinstance(value, dict) and serializer.operation_model.service_model.service_name == "dynamodb"


_json_structure = BaseJSONSerializer._serialize_type_structure
_json_map = BaseJSONSerializer._serialize_type_map


def _serialize_structure(self, serialized, value, shape, key):
    if key and shape.name == "AttributeValue" and _dynamodb_value(self, value):
        self._default_serialize(serialized, _attribute_value(self, value), shape, key)
    else:
        _json_structure(self, serialized, value, shape, key)


def _serialize_map(self, serialized, value, shape, key):
    if shape.value.name == "AttributeValue" and _dynamodb_value(self, value):
        self._default_serialize(serialized, _attribute_map(self, value), shape, key)
    else:
        _json_map(self, serialized, value, shape, key)


BaseJSONSerializer._serialize_type_structure = _serialize_structure
BaseJSONSerializer._serialize_type_map = _serialize_map

# dynamodb-serial (after the patches above, so that the backend's replaced methods are
# serialised too)
_serialize_backend(DynamoDBBackend)

# ---------------------------------------------------------------- SQS
#
# sqs-queue-depth
#
# moto walks a queue's messages, reading the clock for each, to count them
# (ApproximateNumberOfMessages and the others) every time it builds the queue's attributes,
# which its send path does four times per message to read ContentBasedDeduplication, and
# a receive three times per message delivered to read MessageRetentionPeriod; a FIFO send
# compares its deduplication id with every message of the queue; a delete or a visibility
# change looks for its receipt handle in every message (and each message builds the list of
# its handles to answer). Here the counts read the clock once and are left out (0) while
# moto sends (nothing there reads them, and it builds the attributes for each message of a
# batch); the retention period is read from the queue; a
# FIFO queue remembers its last five minutes of deduplication ids (moto's window), and
# receipt handles lead to their message through a map.

Queue = sqs_models.Queue
Message = sqs_models.Message


class _SQSCall(threading.local):
    sending = False


_sqs_call = _SQSCall()


def _now_ms():
    return sqs_models.unix_time_millis()


def _count(of):
    """A count property of Queue: 0 while moto sends a message, else one pass over the
    messages with one clock reading."""

    def count(self):
        if _sqs_call.sending:
            return 0
        return of(self, _now_ms())

    return property(count)


Queue.messages = property(lambda self: _visible(self, _now_ms()))
Queue.approximate_number_of_messages = _count(lambda q, now: len(_visible(q, now)))
Queue.approximate_number_of_messages_delayed = _count(lambda q, now: sum(1 for m in q._messages if now < m.delayed_until))
Queue.approximate_number_of_messages_not_visible = _count(lambda q, now: sum(1 for m in q._messages if not now > m.visible_at))


def _visible(queue, now):
    """Message.visible and not Message.delayed, at one clock reading."""
    return [m for m in queue._messages if now > m.visible_at and not now < m.delayed_until]


def _without_counts(send):
    @functools.wraps(send)
    def call(self, *args, **kwargs):
        _sqs_call.sending = True
        try:
            return send(self, *args, **kwargs)
        finally:
            _sqs_call.sending = False

    return call


def _retained(self, queue_name, message):
    queue = self.get_queue(queue_name)
    return queue.message_retention_period + message.sent_timestamp / 1000 > sqs_models.unix_time()


sqs_models.SQSBackend.send_message = _without_counts(sqs_models.SQSBackend.send_message)
sqs_models.SQSBackend.send_message_batch = _without_counts(sqs_models.SQSBackend.send_message_batch)
# Building the attributes converts each attribute's name for every call: once is enough.
sqs_models.camelcase_to_underscores = functools.lru_cache(maxsize=None)(sqs_models.camelcase_to_underscores)
sqs_models.SQSBackend.is_message_valid_based_on_retention_period = _retained

_queue_add_message = Queue.add_message


def _add_message(self, message):
    if not self.fifo_queue or self.lambda_event_source_mappings:
        return _queue_add_message(self, message)
    recent = self.__dict__.setdefault("_recent_deduplication_ids", collections.OrderedDict())
    window = sqs_models.DEDUPLICATION_TIME_IN_SECONDS * 1000
    while recent:
        oldest = next(iter(recent.values()))
        if message.sent_timestamp - oldest.sent_timestamp < window:
            break
        recent.popitem(last=False)
    content_based = self.content_based_deduplication
    if content_based is True or content_based == "true" or message.deduplication_id:
        earlier = recent.get(message.deduplication_id)
        if earlier is not None and earlier in self._messages and message.sent_timestamp - earlier.sent_timestamp < window:
            return
    with self._messages_lock:
        self._messages.append(message)
        self._messages_lock.notify_all()
    if message.deduplication_id is not None:
        recent[message.deduplication_id] = message
        recent.move_to_end(message.deduplication_id)


Queue.add_message = _add_message

# Receipt handles -> their message (weakly: a deleted message goes). A message gets a new
# handle at each receive, and moto accepts its earlier ones too.
_by_receipt_handle = weakref.WeakValueDictionary()
_mark_received = Message.mark_received


def _mark_received_mapped(self, visibility_timeout=None):
    _mark_received(self, visibility_timeout)
    _by_receipt_handle[self.receipt_handle] = self


Message.mark_received = _mark_received_mapped


def _message_in(queue, receipt_handle):
    """The queue's message with the receipt handle, or None (moto's own search then
    answers: an unknown handle is an error)."""
    message = _by_receipt_handle.get(receipt_handle)
    return message if message is not None and message in queue._messages else None


_queue_delete_message = Queue.delete_message


def _delete_message(self, receipt_handle):
    message = None if receipt_handle in self.deleted_messages else _message_in(self, receipt_handle)
    if message is None:
        return _queue_delete_message(self, receipt_handle)
    self._messages.remove(message)
    self.pending_messages.discard(message)
    self.deleted_messages.update(message.all_receipt_handles)


Queue.delete_message = _delete_message


_change_message_visibility = sqs_models.SQSBackend.change_message_visibility


def _change_message_visibility_mapped(self, queue_name, receipt_handle, visibility_timeout):
    queue = self.get_queue(queue_name)
    message = _message_in(queue, receipt_handle)
    if message is None:
        return _change_message_visibility(self, queue_name, receipt_handle, visibility_timeout)
    # What moto does with the message it finds.
    if _now_ms() + int(visibility_timeout) * 1000 - message.sent_timestamp > 43200 * 1000:
        return _change_message_visibility(self, queue_name, receipt_handle, visibility_timeout)
    message.change_visibility(visibility_timeout)
    if message.visible and message in queue.pending_messages:
        queue.pending_messages.remove(message)


sqs_models.SQSBackend.change_message_visibility = _change_message_visibility_mapped

# sqs-receive-waits
#
# A queue counts its changes that can make a message deliverable (a send, a delete, a
# visibility change: one may free a FIFO group) and tells its waiting receives of each
# (below). It also remembers when its delayed messages become deliverable (a queue's
# DelaySeconds), which no change announces, so that a receive waits no longer than that.

def _notifying(change, queue_of):
    @functools.wraps(change)
    def call(*args, **kwargs):
        try:
            return change(*args, **kwargs)
        finally:
            try:
                queue = queue_of(*args)
            except Exception:  # no such queue: moto has answered so
                queue = None
            if queue is not None:
                with queue._messages_lock:
                    queue.__dict__["_changes"] = queue.__dict__.get("_changes", 0) + 1
                    queue._messages_lock.notify_all()

    return call


_add_message = Queue.add_message


def _add_message_remembering_its_delay(queue, message):
    _add_message(queue, message)
    if message.delayed_until > _now_ms():
        with queue._messages_lock:
            heapq.heappush(queue.__dict__.setdefault("_delay_ends", []), message.delayed_until)


def _until_next_delay_ends(queue):
    """Seconds until the queue's next delayed message becomes deliverable, or None."""
    ends, now = queue.__dict__.get("_delay_ends"), _now_ms()
    while ends and ends[0] <= now:
        heapq.heappop(ends)
    return (ends[0] - now) / 1000 if ends else None


Queue.add_message = _notifying(_add_message_remembering_its_delay, lambda queue, *args: queue)
Queue.delete_message = _notifying(Queue.delete_message, lambda queue, *args: queue)
sqs_models.SQSBackend.change_message_visibility = _notifying(
    sqs_models.SQSBackend.change_message_visibility, lambda backend, queue_name, *args: backend.get_queue(queue_name))

# sqs-serial
_sqs_receive = sqs_models.SQSBackend.receive_message
_sqs_lock = _serialize_backend(sqs_models.SQSBackend)


def _receive_message(self, queue_name, count, wait_seconds_timeout, visibility_timeout, message_attribute_names=None):
    # moto's long poll waits inside receive_message, which under the lock would hold
    # every other queue operation, the sends it waits for among them.
    deadline = time.time() + wait_seconds_timeout
    while True:
        with _sqs_lock:
            queue = self.get_queue(queue_name)
            seen = queue.__dict__.get("_changes", 0)
            result = _sqs_receive(self, queue_name, count, 0, visibility_timeout, message_attribute_names)
        remaining = deadline - time.time()
        if result or remaining <= 0:
            return result
        # sqs-receive-waits: nothing deliverable; wait for a change of the queue until the
        # poll ends or a delayed message becomes deliverable (a visibility timeout running
        # out notifies no one: as in moto, the next poll finds the message). No change is
        # missed: changes happen under the lock held above, and count under the condition.
        # After a change, 20 ms more, as this loop always waited between its walks: the
        # changes of a busy queue come one by one, and a receive then takes the messages
        # they freed in one batch.
        with queue._messages_lock:
            delay_ends = _until_next_delay_ends(queue)
            timeout = remaining if delay_ends is None else min(remaining, delay_ends)
            queue._messages_lock.wait_for(lambda: queue.__dict__.get("_changes", 0) != seen, timeout=timeout)
        time.sleep(max(0.0, min(deadline - time.time(), 0.02)))


sqs_models.SQSBackend.receive_message = _receive_message

if __name__ == "__main__":  # not when a test loads the patches alone
    main(sys.argv[1:])
