"""sqs-queue-depth: a send, receive, delete or visibility change does not walk the queue's
messages.

Test: TestQueueCostIsIndependentOfItsDepth. Kind: cost.

moto walks a queue's messages, reading the clock for each, to count them
(ApproximateNumberOfMessages and the others) every time it builds the queue's attributes,
which its send path does four times per message to read ContentBasedDeduplication, and a
receive three times per message delivered to read MessageRetentionPeriod; a FIFO send
compares its deduplication id with every message of the queue; a delete or a visibility
change looks for its receipt handle in every message (and each message builds the list of
its handles to answer). Here the counts read the clock once and are left out (0) while moto
sends (nothing there reads them, and it builds the attributes for each message of a batch);
the retention period is read from the queue; a FIFO queue remembers its last five minutes of
deduplication ids (moto's window, shared.QueueHooks.add), and receipt handles lead to their
message through a map (shared.QueueHooks.delete and change_visibility).
"""
import collections
import functools
import threading
import weakref

import moto.sqs.models as sqs_models

from patches import shared

KIND = "cost"


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


def _add(queue, message, moto_add):
    if not queue.fifo_queue or queue.lambda_event_source_mappings:
        return moto_add(queue, message)
    recent = shared.queue_state(queue).setdefault("recent_deduplication_ids", collections.OrderedDict())
    window = sqs_models.DEDUPLICATION_TIME_IN_SECONDS * 1000
    while recent:
        oldest = next(iter(recent.values()))
        if message.sent_timestamp - oldest.sent_timestamp < window:
            break
        recent.popitem(last=False)
    content_based = queue.content_based_deduplication
    if content_based is True or content_based == "true" or message.deduplication_id:
        earlier = recent.get(message.deduplication_id)
        if earlier is not None and earlier in queue._messages and message.sent_timestamp - earlier.sent_timestamp < window:
            return
    with queue._messages_lock:
        queue._messages.append(message)
        queue._messages_lock.notify_all()
    if message.deduplication_id is not None:
        recent[message.deduplication_id] = message
        recent.move_to_end(message.deduplication_id)


# Receipt handles -> their message (weakly: a deleted message goes). A message gets a new
# handle at each receive, and moto accepts its earlier ones too.
_by_receipt_handle = weakref.WeakValueDictionary()


def _message_in(queue, receipt_handle):
    """The queue's message with the receipt handle, or None (moto's own search then
    answers: an unknown handle is an error)."""
    message = _by_receipt_handle.get(receipt_handle)
    return message if message is not None and message in queue._messages else None


def _delete(queue, receipt_handle, moto_delete):
    message = None if receipt_handle in queue.deleted_messages else _message_in(queue, receipt_handle)
    if message is None:
        return moto_delete(queue, receipt_handle)
    queue._messages.remove(message)
    queue.pending_messages.discard(message)
    queue.deleted_messages.update(message.all_receipt_handles)


def _change_visibility(backend, queue_name, receipt_handle, visibility_timeout, moto_change):
    queue = backend.get_queue(queue_name)
    message = _message_in(queue, receipt_handle)
    if message is None:
        return moto_change(backend, queue_name, receipt_handle, visibility_timeout)
    # What moto does with the message it finds.
    if _now_ms() + int(visibility_timeout) * 1000 - message.sent_timestamp > 43200 * 1000:
        return moto_change(backend, queue_name, receipt_handle, visibility_timeout)
    message.change_visibility(visibility_timeout)
    if message.visible and message in queue.pending_messages:
        queue.pending_messages.remove(message)


def apply():
    queue, backend = sqs_models.Queue, sqs_models.SQSBackend
    queue.messages = property(lambda self: _visible(self, _now_ms()))
    queue.approximate_number_of_messages = _count(lambda q, now: len(_visible(q, now)))
    queue.approximate_number_of_messages_delayed = _count(lambda q, now: sum(1 for m in q._messages if now < m.delayed_until))
    queue.approximate_number_of_messages_not_visible = _count(lambda q, now: sum(1 for m in q._messages if not now > m.visible_at))
    backend.send_message = _without_counts(backend.send_message)
    backend.send_message_batch = _without_counts(backend.send_message_batch)
    # Building the attributes converts each attribute's name for every call: once is enough.
    sqs_models.camelcase_to_underscores = functools.lru_cache(maxsize=None)(sqs_models.camelcase_to_underscores)
    backend.is_message_valid_based_on_retention_period = _retained

    mark_received = sqs_models.Message.mark_received

    def mark_received_mapped(self, visibility_timeout=None):
        mark_received(self, visibility_timeout)
        _by_receipt_handle[self.receipt_handle] = self

    sqs_models.Message.mark_received = mark_received_mapped

    shared.install_queue_hooks()
    shared.QueueHooks.add = _add
    shared.QueueHooks.delete = _delete
    shared.QueueHooks.change_visibility = _change_visibility
