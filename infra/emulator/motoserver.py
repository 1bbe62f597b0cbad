"""Runs moto's server as the moto_server script does, with three fixes.

1. Speed. moto computes "now" as utcnow() minus the epoch with datetime arithmetic,
   and its SQS model asks for it for every message of a queue several times per
   message sent or received (queue attributes, visibility). With a thousand messages
   in a FIFO queue one SendMessageBatch takes seconds. time.time() is the same value
   at a fraction of the cost; only the no-argument case changes.
2. SQS sends. Sending a message reads the queue's attribute map several times, and
   each read counts the queue's messages (approximate numbers) by scanning them all:
   a batch of ten into a queue a thousand deep scans it tens of times. Within one
   send call the map is computed once.
3. Thread safety. The server answers requests on several threads, and moto's
   TransactWriteItems copies the table while other requests may write to it: it then
   fails with "dictionary changed size during iteration" (a 500). One lock around the
   DynamoDB backend's operations makes them take turns, as they would under the GIL
   anyway.

docs/local-stack.md has the measurements and the tests that show both.
"""
import functools
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
from moto.sqs.models import Queue, SQSBackend  # noqa: E402

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
        token = _send_cache.set({})
        try:
            return method(*args, **kwargs)
        finally:
            _send_cache.reset(token)

    return call


Queue.attributes = property(_attributes)
SQSBackend.send_message = _cached_attributes(SQSBackend.send_message)
SQSBackend.send_message_batch = _cached_attributes(SQSBackend.send_message_batch)

_dynamodb_lock = threading.RLock()


def _serialized(method):
    @functools.wraps(method)
    def call(*args, **kwargs):
        with _dynamodb_lock:
            return method(*args, **kwargs)

    return call


for _name, _member in list(vars(DynamoDBBackend).items()):
    if inspect.isfunction(_member) and not _name.startswith("__"):
        setattr(DynamoDBBackend, _name, _serialized(_member))

from moto.server import main  # noqa: E402

sys.exit(main())
