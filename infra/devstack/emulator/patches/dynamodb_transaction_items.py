"""dynamodb-transaction-items: TransactWriteItems saves and restores the items it touches, not
copies of the tables it names.

Test: TestTransactionCostIsIndependentOfTheTable. Kind: cost.

moto's transact_write_items deep-copies each table the transaction names (once per item of
the transaction) and, when the transaction fails, puts the copies back in place of the
tables. While it runs, the copy of a table is a marker standing for the table, and the first
read or write of each item (shared.ItemHooks.before_touch) saves a copy of that item
(update_item changes items in place, so a reference would not do). When moto has put markers
back, the tables return and their saved items are restored: the same rollback, at the cost of
the items touched.
"""
import copy
import threading
import types

import moto.dynamodb.models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.table import Table

from patches import shared

KIND = "cost"


class _TableMarker:
    def __init__(self, table):
        self.table = table
        self.stream_length = len(table.stream_shard.items) if table.stream_shard is not None else 0


class _SavedItems:
    def __init__(self):
        self.items = {}

    def save(self, table, key):
        if (id(table), key) not in self.items:
            self.items[id(table), key] = (table, key, copy.deepcopy(shared.stored(table, *key)))

    def restore(self, marker):
        table = marker.table
        for saved, key, item in self.items.values():
            if saved is table:
                shared.place(table, *key, item)
        if table.stream_shard is not None:
            del table.stream_shard.items[marker.stream_length:]


class _Transaction(threading.local):
    saved = None  # the running transaction's _SavedItems, in its thread


_transaction = _Transaction()


def _deepcopy(value, memo=None):
    if _transaction.saved is not None and isinstance(value, Table):
        return _TableMarker(value)
    return copy.deepcopy(value, memo)


def _save(table, key):
    if _transaction.saved is not None:
        _transaction.saved.save(table, key)


def apply():
    shared.install_item_hooks()
    shared.ItemHooks.before_touch.append(_save)
    # moto.dynamodb.models uses the copy module for copy.deepcopy alone.
    dynamodb_models.copy = types.SimpleNamespace(deepcopy=_deepcopy)
    transact_write_items = DynamoDBBackend.transact_write_items

    def transact_write_items_saving_items(self, transact_items):
        _transaction.saved = saved = _SavedItems()
        try:
            return transact_write_items(self, transact_items)
        finally:
            _transaction.saved = None
            for name, table in list(self.tables.items()):
                if isinstance(table, _TableMarker):
                    self.tables[name] = table.table
                    saved.restore(table)

    DynamoDBBackend.transact_write_items = transact_write_items_saving_items
