"""Runs moto's server (what the moto_server script runs) after the patches below, one line
each: the moto behaviour it changes, and the test in infra/devstack/emulator that fails on plain moto.

- dynamodb-serial: DynamoDB operations run one at a time, not at once (TestTransactionsWhileOthersWrite)
- sqs-serial: SQS operations run one at a time, a long poll waiting outside (TestConcurrentReceivesKeepFIFOGroupsApart)

Plain moto answers requests on many threads without guarding its backends, and the local
stack's pollers, workers and API calls reach it at once: a TransactWriteItems that copies a
table while another request writes to it fails with a 500, and two receives at once can
both take messages of one FIFO group (docs/local-stack.md). The patches reach into moto's
internals, so the server refuses to start with any moto but the one they were written for.
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

import moto.sqs.models as sqs_models  # noqa: E402
from moto.dynamodb.models import DynamoDBBackend  # noqa: E402
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


# dynamodb-serial
_serialize_backend(DynamoDBBackend)

# sqs-serial
_sqs_receive = sqs_models.SQSBackend.receive_message
_sqs_lock = _serialize_backend(sqs_models.SQSBackend)


def _receive_message(self, queue_name, count, wait_seconds_timeout, visibility_timeout, message_attribute_names=None):
    # moto's long poll waits inside receive_message, which under the lock would hold
    # every other queue operation, the sends it waits for among them.
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


sqs_models.SQSBackend.receive_message = _receive_message

main(sys.argv[1:])
