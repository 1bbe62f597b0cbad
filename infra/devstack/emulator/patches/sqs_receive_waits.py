"""sqs-receive-waits: a long poll that finds nothing deliverable waits for a send, a delete, a
visibility change or the end of a message's delay, not 20 ms, before it walks the queue again.

Tests: TestWaitingReceivesCostNothingBehindABusyGroup, TestLongPollWakesWhenADelayEnds.
Kind: cost.

A queue counts its changes that can make a message deliverable (a send, a delete, a
visibility change: one may free a FIFO group; shared.QueueHooks.after_change) and tells its
waiting receives of each. It also remembers when its delayed messages become deliverable (a
queue's DelaySeconds; shared.QueueHooks.after_add), which no change announces, so that a
receive waits no longer than that (shared.ReceiveHooks). A visibility timeout running out
notifies no one: as in moto, the next poll finds the message.
"""
import heapq

import moto.sqs.models as sqs_models

from patches import shared

KIND = "cost"


def _now_ms():
    return sqs_models.unix_time_millis()


def _count_change(queue):
    with queue._messages_lock:
        state = shared.queue_state(queue)
        state["changes"] = state.get("changes", 0) + 1
        queue._messages_lock.notify_all()


def _remember_delay(queue, message):
    if message.delayed_until > _now_ms():
        with queue._messages_lock:
            heapq.heappush(shared.queue_state(queue).setdefault("delay_ends", []), message.delayed_until)


def _until_next_delay_ends(queue):
    """Seconds until the queue's next delayed message becomes deliverable, or None."""
    ends, now = shared.queue_state(queue).get("delay_ends"), _now_ms()
    while ends and ends[0] <= now:
        heapq.heappop(ends)
    return (ends[0] - now) / 1000 if ends else None


def _changes(queue):
    return shared.queue_state(queue).get("changes", 0)


def _wait(queue, seen, remaining):
    # No change is missed: changes happen under the backend's lock, held while the receive
    # read `seen`, and count under the condition.
    with queue._messages_lock:
        delay_ends = _until_next_delay_ends(queue)
        timeout = remaining if delay_ends is None else min(remaining, delay_ends)
        queue._messages_lock.wait_for(lambda: _changes(queue) != seen, timeout=timeout)


def apply():
    shared.install_queue_hooks()
    shared.QueueHooks.after_add.append(_remember_delay)
    shared.QueueHooks.after_change.append(_count_change)
    shared.ReceiveHooks.changes = staticmethod(_changes)
    shared.ReceiveHooks.wait = staticmethod(_wait)
