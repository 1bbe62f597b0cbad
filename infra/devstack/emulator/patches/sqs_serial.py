"""sqs-serial: SQS operations run one at a time, a long poll waiting outside.

Test: TestConcurrentReceivesKeepFIFOGroupsApart. Kind: correctness.

moto answers requests on many threads without guarding its backends: two receives at once
can both take messages of one FIFO group. Every method of the SQS backend takes one lock. It
comes after every SQS patch of the series, so that the methods they replaced take it too.
moto's long poll waits inside receive_message, which under the lock would hold every other
queue operation, the sends it waits for among them: a receive here walks the queue under the
lock without waiting, and waits outside it (shared.ReceiveHooks), 20 ms more after a change
(the changes of a busy queue come one by one, and a receive then takes the messages they
freed in one batch).
"""
import time

import moto.sqs.models as sqs_models

from patches import shared

KIND = "correctness"


def apply():
    backend = sqs_models.SQSBackend
    receive = backend.receive_message
    lock = shared.serialize_backend(backend)

    def receive_message(self, queue_name, count, wait_seconds_timeout, visibility_timeout, message_attribute_names=None):
        deadline = time.time() + wait_seconds_timeout
        while True:
            with lock:
                queue = self.get_queue(queue_name)
                seen = shared.ReceiveHooks.changes(queue)
                result = receive(self, queue_name, count, 0, visibility_timeout, message_attribute_names)
            remaining = deadline - time.time()
            if result or remaining <= 0:
                return result
            if shared.ReceiveHooks.wait:
                shared.ReceiveHooks.wait(queue, seen, remaining)
            shared.receive_pause(deadline)

    backend.receive_message = receive_message
