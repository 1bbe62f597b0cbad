"""Runs moto's server application (what the moto_server script serves) with the fixes below.

1. Speed. moto computes "now" as utcnow() minus the epoch with datetime arithmetic,
   and its SQS model asks for it for every message of a queue several times per
   message sent or received (queue attributes, visibility). With a thousand messages
   in a FIFO queue one SendMessageBatch takes seconds. time.time() is the same value
   at a fraction of the cost; only the no-argument case changes.
2. SQS queue scans. Sending or receiving a message reads the queue's attribute map
   several times, and each read counts the queue's messages (approximate numbers) by
   scanning them all: a batch of ten into a queue a thousand deep scans it tens of
   times. Within one send or receive call the map is computed once, and the list of
   deliverable messages and the counts of delayed and invisible ones read the clock
   once per scan instead of once or twice per message.
3. Thread safety. The server answers requests on several threads. moto's
   TransactWriteItems copies the table while other requests may write to it and
   then fails with "dictionary changed size during iteration" (a 500); two
   ReceiveMessage calls at once can both take messages of one FIFO group, breaking
   its order. The DynamoDB backend's operations take turns, and so do the SQS
   backend's; a long poll waits outside the SQS lock.
4. Queries read their partition. moto answers a Query on the table's own key by
   sorting every item of the table and keeping those of the partition, so a status
   read or an invoice listing costs in proportion to the whole table; DynamoDB reads
   the partition. A Query on the base table with a sort key now starts from the
   partition's items; everything after (sorting, conditions, filters, paging) is moto's.
5. Items size their attributes once. moto builds a stored item by adding its
   attributes one at a time to a dict that re-measures all earlier attributes on
   each addition: quadratic in the attribute count, so a 15-attribute item costs
   several times a 3-attribute one of the same size. The item is now measured once,
   against the same 405,000-byte limit, before its attributes are stored.
6. Attribute values pass through. moto's JSON request parser and response serializer
   walk every DynamoDB attribute value through its model, trying each of the ten
   members of the AttributeValue shape (a Query answer of 250 items of 12
   attributes took ~0.4 s; parsing took a third of a BatchWriteItem). Values whose
   JSON form both keep as it is (S, N, BOOL, NULL, SS, NS, and M and L made of them)
   are used as they are, a whole item or key at once when all its values are such;
   binary values take moto's path.
7. Less work per request. moto lists its installed service modules (a directory
   read and ~200 stat calls) and the methods of the service's response class
   (inspect.getmembers) for every request; neither list can change while the server
   runs, so each is made once. Every lookup of a service's backend (several per
   request, one per item of a BatchWriteItem) took a global lock and compared the
   service's backend dict with every other registered one; an account already
   present now returns at once. Cyclic garbage is collected less often: every full
   collection walks all stored items (~0.35 s at 40,000).
8. A server that keeps connections. moto_server serves the application with
   Werkzeug's development server, which closes the connection after every response
   (Connection: close) and starts a thread for every connection: per request a TCP
   connection, a thread, the accept and the closing, about 40 % of the CPU a small
   request took. cheroot (the CherryPy project's WSGI server) serves the same
   application over keep-alive connections from a fixed pool of threads.
9. Transactions copy what they touch. moto deep-copies every table a
   TransactWriteItems names before it starts, to restore it if the transaction
   fails: each transaction cost in proportion to the whole table. Its operations touch
   distinct items, so every condition is now checked before anything is written,
   and only the touched items are kept to restore if an operation fails while it is
   applied; the outcome and the errors are moto's.
10. Receipt handles. moto draws each receipt handle (185 random letters) one letter
   per call, and to delete a message it lists every handle of every message of the
   queue, twice: a delete cost in proportion to the queue's depth. A handle is now
   drawn in one call and compared with each message's handles as they are; which
   handles a delete accepts is moto's.
11. A condition is parsed once. moto parses a condition expression when it validates a
   request and again to evaluate it; a transaction of ten conditional puts spent most of
   its time lexing them. A parsed condition is kept for an equal expression with equal
   names and values (the last 4,096), and serves every later parse of it.
12. A released message leaves its group's in-flight set. moto counts a message visible
   when the clock is strictly past its visible_at. ChangeMessageVisibility(0) sets
   visible_at to now and then, to take the message out of the in-flight set that locks
   its FIFO group, asks whether it is visible; the clock often reads the same value
   (time.time() moves in steps of a quarter microsecond), so the message stays "in
   flight" while visible, and the next receive hands out the group's later message
   first (1-2 % of releases of a two-message group). A message is now visible from
   its visible_at on, as a timeout of 0 means.

docs/local-stack.md has the measurements and the tests that show each.
"""
import copy
import functools
import gc
import inspect
import sys
import threading
import time

import moto.core.utils as utils

_unix_time = utils.unix_time


def unix_time(dt=None):
    if dt is None:
        return time.time()
    return _unix_time(dt)


# Before the service models are imported, so that the names they import from
# moto.core.utils are the fast one.
utils.unix_time = unix_time

import contextvars  # noqa: E402

from moto.dynamodb.models import DynamoDBBackend  # noqa: E402
from moto.sqs.models import Message, Queue, SQSBackend  # noqa: E402

_queue_attributes = Queue.attributes.fget
_send_cache = contextvars.ContextVar("send_cache", default=None)


def _attributes(queue):
    cache = _send_cache.get()
    if cache is None:
        return _queue_attributes(queue)
    if id(queue) not in cache:
        cache[id(queue)] = _queue_attributes(queue)
    return cache[id(queue)]


def _cached_attributes(method):
    @functools.wraps(method)
    def call(*args, **kwargs):
        if _send_cache.get() is not None:
            return method(*args, **kwargs)  # within a call that holds the cache
        token = _send_cache.set({})
        try:
            return method(*args, **kwargs)
        finally:
            _send_cache.reset(token)

    return call


Queue.attributes = property(_attributes)


def _deliverable_messages(queue):
    now = unix_time() * 1000.0
    return [m for m in queue._messages if now >= m.visible_at and not now < m.delayed_until]


def _delayed_count(queue):
    now = unix_time() * 1000.0
    return sum(1 for m in queue._messages if now < m.delayed_until)


def _invisible_count(queue):
    now = unix_time() * 1000.0
    return sum(1 for m in queue._messages if now < m.visible_at)


def _visible(message):
    return unix_time() * 1000.0 >= message.visible_at


Queue.messages = property(_deliverable_messages)
Queue.approximate_number_of_messages_delayed = property(_delayed_count)
Queue.approximate_number_of_messages_not_visible = property(_invisible_count)
Message.visible = property(_visible)
SQSBackend.send_message = _cached_attributes(SQSBackend.send_message)
SQSBackend.send_message_batch = _cached_attributes(SQSBackend.send_message_batch)
SQSBackend.receive_message = _cached_attributes(SQSBackend.receive_message)


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


_dynamodb_lock = _serialize_backend(DynamoDBBackend)
_sqs_receive = SQSBackend.receive_message
_sqs_lock = _serialize_backend(SQSBackend)


def _receive_message(self, queue_name, count, wait_seconds_timeout, visibility_timeout, message_attribute_names=None):
    # The long poll waits outside the lock: moto waits inside receive_message, which
    # would hold every other queue operation (the sends it waits for among them).
    deadline = time.time() + wait_seconds_timeout
    while True:
        with _sqs_lock:
            result = _sqs_receive(self, queue_name, count, 0, visibility_timeout, message_attribute_names)
        remaining = deadline - time.time()
        if result or remaining <= 0:
            return result
        started = time.time()
        # No wake-up is lost: the wait checks for deliverable messages under the
        # queue's condition before it sleeps, and a send notifies under it.
        self.get_queue(queue_name).wait_for_messages(remaining)
        if time.time() - started < 0.01:
            # Messages are visible but not deliverable (their FIFO groups are in
            # flight): wait a little instead of spinning.
            time.sleep(min(remaining, 0.02))


SQSBackend.receive_message = _receive_message

import string  # noqa: E402

import moto.sqs.models as sqs_models  # noqa: E402
from moto.moto_api._internal import mock_random  # noqa: E402


def _had_receipt_handle(message, receipt_handle):
    # moto builds the list of every handle the message had to answer this, once per
    # message of the queue for each message deleted.
    return receipt_handle == message.receipt_handle or receipt_handle in message._old_receipt_handles


def _receipt_handle():
    # moto's handle, 185 random lowercase letters, drawn in one call instead of 185.
    return "".join(mock_random.choices(string.ascii_lowercase, k=185))


Message.had_receipt_handle = _had_receipt_handle
sqs_models.generate_receipt_handle = _receipt_handle

from moto import backends  # noqa: E402
from moto.core.base_backend import BackendDict  # noqa: E402
from moto.core.parse import BaseJSONParser  # noqa: E402
from moto.core.serialize import BaseJSONSerializer  # noqa: E402
from moto.dynamodb.exceptions import ItemSizeTooLarge  # noqa: E402
from moto.dynamodb.models.dynamo_type import (  # noqa: E402
    DynamoType,
    Item,
    LimitedSizeDict,
)
from moto.dynamodb.models.table import Table  # noqa: E402

_moto_modules = tuple(backends.list_of_moto_modules())
backends.list_of_moto_modules = lambda: _moto_modules

_create_account_backend = BackendDict._create_account_specific_backend


def _account_backend(self, account_id):
    # An account present in the dict was registered with it (only this method adds
    # accounts, and a reset empties both the dicts and the registry).
    if not dict.__contains__(self, account_id):
        _create_account_backend(self, account_id)


BackendDict._create_account_specific_backend = _account_backend

# moto's LimitedSizeDict limit: between DynamoDB's documented 400 KB and the 409-410 KB
# that DynamoDB was measured to accept.
_ITEM_SIZE_LIMIT = 405000


def _item_init(self, hash_key, range_key, attrs):
    self.hash_key = hash_key
    self.range_key = range_key
    self.attrs = LimitedSizeDict()
    # dict.update skips LimitedSizeDict's per-attribute check; Item.size measures once.
    dict.update(self.attrs, {key: DynamoType(value) for key, value in attrs.items()})
    if self.size() > _ITEM_SIZE_LIMIT:
        raise ItemSizeTooLarge


Item.__init__ = _item_init

# AttributeValues whose JSON form moto's parser and serializer keep as it is: string
# S and N, lists of strings SS and NS, BOOL, NULL, and M and L made of them. Binary
# members (B, BS) are base64-coded on the way and, like any other form, take moto's path.
_STRING_MEMBERS = frozenset(("S", "N"))
_STRING_LIST_MEMBERS = frozenset(("SS", "NS"))


def _is_plain(value):
    if type(value) is not dict or len(value) != 1:
        return False
    for member, inner in value.items():
        if member in _STRING_MEMBERS:
            return type(inner) is str
        if member == "M":
            return type(inner) is dict and all(_is_plain(item) for item in inner.values())
        if member == "L":
            return type(inner) is list and all(_is_plain(item) for item in inner)
        if member in _STRING_LIST_MEMBERS:
            return type(inner) is list and all(type(item) is str for item in inner)
        return member in ("BOOL", "NULL") and inner is not None


def _is_plain_map(shape, value):
    return (shape.value.name == "AttributeValue" and type(value) is dict
            and all(_is_plain(item) for item in value.values()))


# A plain value parses to an equal copy of itself; the parser's input is the request's
# own freshly decoded JSON, so the value itself serves.
def _fast_parse_structure(parse):
    @functools.wraps(parse)
    def call(self, shape, value):
        if shape.name == "AttributeValue" and _is_plain(value):
            return value
        return parse(self, shape, value)

    return call


def _fast_parse_map(parse):
    # Maps of attribute values (items, keys, expression values) in one step: the
    # per-attribute walk was most of a BatchWriteItem's parsing.
    @functools.wraps(parse)
    def call(self, shape, value):
        if _is_plain_map(shape, value):
            return value
        return parse(self, shape, value)

    return call


# A plain value serializes to an equal copy of itself, which is only ever encoded to
# JSON, so the value itself serves.
def _fast_serialize_structure(serialize):
    @functools.wraps(serialize)
    def call(self, serialized, value, shape, key):
        if key and shape.name == "AttributeValue" and _is_plain(value):
            serialized[key] = value
            return
        serialize(self, serialized, value, shape, key)

    return call


def _fast_serialize_map(serialize):
    @functools.wraps(serialize)
    def call(self, serialized, value, shape, key):
        if _is_plain_map(shape, value):
            self._default_serialize(serialized, value, shape, key)
            return
        serialize(self, serialized, value, shape, key)

    return call


BaseJSONParser._parse_structure = _fast_parse_structure(BaseJSONParser._parse_structure)
BaseJSONParser._parse_map = _fast_parse_map(BaseJSONParser._parse_map)
BaseJSONSerializer._serialize_type_structure = _fast_serialize_structure(BaseJSONSerializer._serialize_type_structure)
BaseJSONSerializer._serialize_type_map = _fast_serialize_map(BaseJSONSerializer._serialize_type_map)

_table_query = Table.query
_table_all_items = Table.all_items
_query_partition = contextvars.ContextVar("query_partition", default=None)


def _all_items(table):
    scope = _query_partition.get()
    if scope is None or scope[0] is not table:
        return _table_all_items(table)
    return list(table.items.get(scope[1], {}).values())


def _query(table, hash_key, *args, **kwargs):
    index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
    if index_name or hash_key is None or not table.range_key_attr:
        return _table_query(table, hash_key, *args, **kwargs)
    token = _query_partition.set((table, hash_key))
    try:
        return _table_query(table, hash_key, *args, **kwargs)
    finally:
        _query_partition.reset(token)


Table.all_items = _all_items
Table.query = _query

import json  # noqa: E402

from moto.dynamodb.comparisons import (  # noqa: E402
    ConditionExpressionParser,
    get_filter_expression,
)

_parse_condition = ConditionExpressionParser.parse
# (expression, names, values) as JSON -> the parsed condition and the placeholders it used.
_parsed_conditions = {}
_PARSED_CONDITIONS_KEPT = 4096


def _parse_condition_once(parser):
    # The parsed condition is only ever evaluated (its operators keep no state), so one
    # serves every parse of an equal expression with equal names and values.
    try:
        key = json.dumps((parser.condition_expression, parser.expression_attribute_names,
                          parser.expression_attribute_values), sort_keys=True)
    except (TypeError, ValueError):  # binary values: parsed every time
        return _parse_condition(parser)
    parsed = _parsed_conditions.get(key)
    if parsed is None:
        condition = _parse_condition(parser)  # an error is raised again on each parse
        if len(_parsed_conditions) >= _PARSED_CONDITIONS_KEPT:
            _parsed_conditions.clear()
        _parsed_conditions[key] = (condition, tuple(parser.expr_attr_names_found),
                                   tuple(parser.expr_attr_values_found))
        return condition
    condition, names, values = parsed
    parser.expr_attr_names_found.extend(names)
    parser.expr_attr_values_found.extend(values)
    return condition


ConditionExpressionParser.parse = _parse_condition_once
from moto.dynamodb.exceptions import (  # noqa: E402
    ConditionalCheckFailed,
    MockValidationException,
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)

_TRANSACT_OPS = ("ConditionCheck", "Put", "Delete", "Update")


def _transact_key(table, op_type, op):
    if op_type != "Put":
        return op["Key"]
    key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = op["Item"][table.range_key_attr]
    return key


def _restore_item(backend, table, key, saved):
    hash_value, range_value = backend.get_keys_value(table, key)
    if saved is None:
        table.delete_item(hash_value, range_value)
    elif range_value is None:
        table.items[hash_value] = saved
    else:
        table.items[hash_value][range_value] = saved


def _check_transaction(backend, transact_items):
    """Validates every operation and evaluates its condition on the current items;
    returns the operations and the cancellation reasons (all None when it may run)."""
    ops, reasons, targets = [], [], set()
    for entry in transact_items:
        if len(entry) > 1:
            raise TransactWriteSingleOpException
        ((op_type, op),) = entry.items()
        old_item = None
        try:
            if op_type not in _TRANSACT_OPS:
                raise ValueError("Unsupported transaction operation")
            table = backend.get_table(op["TableName"])
            key = _transact_key(table, op_type, op)
            target = (str(op["TableName"]), str(dict(sorted(key.items()))))
            if target in targets:
                raise MultipleTransactionsException()
            targets.add(target)
            current = backend.get_item(op["TableName"], key)
            condition = op.get("ConditionExpression")
            if condition is not None:
                check = get_filter_expression(
                    condition, op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
                )
                if not check.expr(current):
                    if current is not None and op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD":
                        old_item = current.to_json()["Attributes"]
                    raise ConditionalCheckFailed(item=old_item)
            ops.append((op_type, op, table, key, current))
            reasons.append((None, None, None))
        except (MultipleTransactionsException, MockValidationException):
            raise
        except ConditionalCheckFailed as e:
            reasons.append(("ConditionalCheckFailed", str(e.message), old_item))
        except Exception as e:
            reasons.append((type(e).__name__, str(e), old_item))
    return ops, reasons


def _apply_operation(backend, op_type, op, key):
    # Puts and deletes go without their conditions: _check_transaction evaluated them
    # under the same hold of the backend's lock, and evaluating them again would only
    # repeat that check. An update keeps it, since its attribute values may serve both.
    if op_type == "Put":
        backend.put_item(op["TableName"], op["Item"])
    elif op_type == "Delete":
        backend.delete_item(op["TableName"], key)
    elif op_type == "Update":
        backend.update_item(op["TableName"], key, update_expression=op["UpdateExpression"],
                            condition_expression=op.get("ConditionExpression"),
                            expression_attribute_names=op.get("ExpressionAttributeNames"),
                            expression_attribute_values=op.get("ExpressionAttributeValues"))


def _transact_write_items(self, transact_items):
    # moto deep-copies every table a transaction touches before it starts, to restore
    # it on failure: a cost in proportion to the whole table, per transaction. The
    # operations touch distinct items, so checking every condition first and keeping
    # copies of just the touched items gives the same outcome: nothing is written
    # unless everything may be, and an operation that fails while applying (a
    # validation error) puts the items written before it back.
    with _dynamodb_lock:  # as every other operation of the backend
        _transact_write_items_unlocked(self, transact_items)


def _transact_write_items_unlocked(self, transact_items):
    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    ops, reasons = _check_transaction(self, transact_items)
    if any(code is not None for code, _, _ in reasons):
        raise TransactionCanceledException(reasons)
    saved = [(table, key, copy.deepcopy(current)) for _, _, table, key, current in ops]
    reasons, failed = [], False
    try:
        for op_type, op, _, key, _ in ops:
            try:
                _apply_operation(self, op_type, op, key)
                reasons.append((None, None, None))
            except MockValidationException:
                raise
            except Exception as e:
                reasons.append((type(e).__name__, str(e), None))
                failed = True
    except MockValidationException:
        failed = True
        raise
    finally:
        if failed:
            for table, key, item in reversed(saved):
                _restore_item(self, table, key, item)
    if failed:
        raise TransactionCanceledException(reasons)


DynamoDBBackend.transact_write_items = _transact_write_items

import moto.core.responses as moto_responses  # noqa: E402

moto_responses.method_names_from_class = functools.cache(
    lambda cls: tuple(utils.method_names_from_class(cls))
)

# Collect cyclic garbage less often: the emulator holds every item as Python objects,
# and each full collection walks them all (~0.35 s at 40,000 items).
gc.set_threshold(50_000, 20, 100)

import argparse  # noqa: E402
import os  # noqa: E402

from cheroot import wsgi  # noqa: E402
from moto.moto_server.werkzeug_app import (  # noqa: E402
    DomainDispatcherApplication,
    create_backend_app,
)

# Enough threads for every long poll the local stack and the tests hold at once (each
# waits up to 20 s on a thread) with room for the requests around them.
_SERVER_THREADS = 128
# Longer than the Go SDK's 90 s idle-connection timeout, so that the client, not the
# server, closes an idle connection and a request never races the server's close.
_IDLE_SECONDS = 300


def serve(argv):
    parser = argparse.ArgumentParser(description="moto's server application on cheroot")
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=int(os.environ.get("MOTO_PORT", 5000)))
    args = parser.parse_args(argv)
    os.environ.setdefault("MOTO_PORT", str(args.port))  # as moto_server does
    server = wsgi.Server(
        (args.host, args.port),
        DomainDispatcherApplication(create_backend_app),
        numthreads=_SERVER_THREADS,
        max=_SERVER_THREADS,
        timeout=_IDLE_SECONDS,
        request_queue_size=128,  # the listen backlog: bursts of new connections wait
    )
    server.keep_alive_conn_limit = None  # keep every client connection open
    try:
        server.start()
    except KeyboardInterrupt:
        server.stop()


serve(sys.argv[1:])
