"""dynamodb-serial: DynamoDB operations run one at a time, not at once.

Test: TestTransactionsWhileOthersWrite. Kind: correctness.

moto answers requests on many threads without guarding its backends, and the local stack's
pollers, workers and API calls reach it at once: a TransactWriteItems that copies a table
while another request writes to it fails with a 500 ("dictionary changed size during
iteration"). Every method of the DynamoDB backend takes one lock. It comes after every
DynamoDB patch of the series, so that the methods they replaced take it too.
"""
from moto.dynamodb.models import DynamoDBBackend

from patches import shared

KIND = "correctness"


def apply():
    shared.serialize_backend(DynamoDBBackend)
