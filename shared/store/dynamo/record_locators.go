package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

type recordLocatorItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	ET          string `dynamodbav:"et"`
	InvoiceUUID string `dynamodbav:"inv"`
}

func newRecordLocatorItem(l store.RecordLocator) recordLocatorItem {
	k := keys.RecordLocator(l.AccountID, l.UUID)
	return recordLocatorItem{PK: k.PK, SK: k.SK, ET: keys.TypeRecordLocator, InvoiceUUID: l.InvoiceUUID}
}

// PutRecordLocators writes locators with BatchWriteItem (25 per request). The import
// writes those of new records before the invoices that hold them, so a crash in between
// leaves a locator of a record not yet stored (a lookup finds nothing), never a stored
// record without its locator.
func (s *Store) PutRecordLocators(ctx context.Context, ls []store.RecordLocator) error {
	items := make([]any, len(ls))
	for i, l := range ls {
		items[i] = newRecordLocatorItem(l)
	}
	return s.putItemsBatched(ctx, items)
}

// DeleteRecordLocators removes the locators of deleted records. A locator left behind
// (a deleted customer's, a purged data source's) is harmless: lookups check that the
// invoice it names still holds the record.
func (s *Store) DeleteRecordLocators(ctx context.Context, accountID string, uuids []string) error {
	keyItems := make([]map[string]types.AttributeValue, len(uuids))
	for i, u := range uuids {
		keyItems[i] = keyAttrs(keys.RecordLocator(accountID, u))
	}
	return s.batchDelete(ctx, keyItems)
}

// InvoiceOfRecord reads the invoice that holds the line item or transaction recordUUID
// (one GetItem for the locator, one for the invoice); store.ErrNotFound when there is none.
func (s *Store) InvoiceOfRecord(ctx context.Context, accountID, recordUUID string) (model.Invoice, error) {
	var loc recordLocatorItem
	if err := s.get(ctx, keys.RecordLocator(accountID, recordUUID), &loc); err != nil {
		return model.Invoice{}, err
	}
	inv, err := s.GetInvoice(ctx, accountID, loc.InvoiceUUID)
	if err != nil {
		return model.Invoice{}, err
	}
	if !holds(inv, recordUUID) {
		return model.Invoice{}, store.ErrNotFound
	}
	return inv, nil
}

// holds reports whether the invoice has a line item or transaction with that uuid.
func holds(inv model.Invoice, recordUUID string) bool {
	return inv.LineItemIndex(recordUUID) >= 0 || inv.TransactionIndex(recordUUID) >= 0
}

// recordHolders decodes the locators of records found in a batch read: record uuid ->
// the invoice its locator names.
func recordHolders(found map[keys.Key]map[string]types.AttributeValue, accountID string, records []string) (map[string]string, error) {
	out := map[string]string{}
	for _, u := range records {
		raw, ok := found[keys.RecordLocator(accountID, u)]
		if !ok {
			continue
		}
		var it recordLocatorItem
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return nil, err
		}
		out[u] = it.InvoiceUUID
	}
	return out, nil
}

// liveHolders keeps the holders whose invoice (found in one of the batch reads) still
// holds the record: a locator left behind by a deletion does not hold an external id.
func liveHolders(accountID string, holders map[string]string, reads ...map[keys.Key]map[string]types.AttributeValue) (map[string]string, error) {
	out := map[string]string{}
	for rec, invUUID := range holders {
		for _, found := range reads {
			raw, ok := found[keys.Invoice(accountID, invUUID)]
			if !ok {
				continue
			}
			var it invoiceItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return nil, err
			}
			if holds(it.invoice(accountID), rec) {
				out[rec] = invUUID
			}
			break
		}
	}
	return out, nil
}
