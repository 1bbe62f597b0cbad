"""dynamodb-scan-pages: a Scan of the table keeps the table's order from page to page while
nothing is written, so a page costs its items, not a sort of the table.

Test: TestScanPageCostIsIndependentOfTheTable. Kind: cost.

Table.scan sorts every item of the table (all_items()) for each page and then walks past the
items before its ExclusiveStartKey: reading a table page by page costs a sort of the table
per page. Here a scan of the table (not of an index) keeps the table's order from one page to
the next while nothing is written (shared.ItemHooks.after_change drops it), and all_items()
answers the items after the start key (shared.narrowed); the scan itself is moto's.
"""
import bisect

from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table

from patches import shared

KIND = "cost"


def _scan_items(table, start_key):
    """The table's items after start_key (all of them without one), in all_items() order."""
    attrs = [table.hash_key_attr] + ([table.range_key_attr] if table.has_range_key else [])
    state = shared.table_state(table)
    kept = state.get("sorted_table")
    if kept is None:
        entries = sorted(((tuple(shared.order(item.attrs[a]) for a in attrs), item) for item in shared.every_item(table)),
                         key=lambda entry: entry[0])
        kept = state["sorted_table"] = ([e[0] for e in entries], [e[1] for e in entries])
    values, items = kept
    if start_key is None:
        return items
    if not all(a in start_key for a in attrs):
        return None  # moto answers the malformed key
    return items[bisect.bisect_right(values, tuple(shared.order(DynamoType(start_key[a])) for a in attrs)):]


def _forget_order(table, hash_key, range_key):
    shared.table_state(table).pop("sorted_table", None)


def apply():
    shared.install_item_hooks()
    shared.install_narrowing()
    shared.ItemHooks.after_change.append(_forget_order)
    table_scan = Table.scan

    def scan(self, filters, limit, exclusive_start_key, filter_expression=None, index_name=None,
             consistent_read=False, projection_expression=None, segments=(None, None)):
        items = None if index_name else _scan_items(self, exclusive_start_key)
        with shared.narrowed(self, items):
            return table_scan(self, filters, limit, exclusive_start_key, filter_expression, index_name,
                              consistent_read, projection_expression, segments=segments)

    Table.scan = scan
