package billing

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type RecordLocatorItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	ET          string `dynamodbav:"et"`
	InvoiceUUID string `dynamodbav:"inv"`
	// At (Unix seconds) tells a claim in flight, whose invoice is not written yet, from
	// a locator left behind by a deletion; absent on locators older than the claims.
	At int64 `dynamodbav:"at,omitempty"`
}

func newRecordLocatorItem(l store.RecordLocator) RecordLocatorItem {
	k := keys.RecordLocator(l.AccountID, l.UUID)
	it := RecordLocatorItem{PK: k.PK, SK: k.SK, ET: keys.TypeRecordLocator, InvoiceUUID: l.InvoiceUUID}
	if !l.At.IsZero() {
		it.At = l.At.Unix()
	}
	return it
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
	return s.t.PutItemsBatched(ctx, items)
}

// ClaimRecordLocators takes line item and transaction external ids: one PutItem per
// locator (1 WCU: a locator is about 100 bytes), in parallel, each on condition that
// the locator is absent, already names the same invoice (a retry), or still names the
// stale invoice the import read. The derived uuid makes the locator the external id's
// one claim, so of two invoices racing for an id exactly one gets it.
func (s *Store) ClaimRecordLocators(ctx context.Context, ls []store.RecordLocator) []error {
	errs := make([]error, len(ls))
	parallel.For(len(ls), table.WriteConcurrency, func(i int) {
		l := ls[i]
		av, err := attributevalue.MarshalMap(newRecordLocatorItem(l))
		if err != nil {
			errs[i] = err
			return
		}
		cond := "attribute_not_exists(PK) OR inv = :inv"
		values := map[string]types.AttributeValue{":inv": table.SAttr(l.InvoiceUUID)}
		if l.Replaces != "" {
			cond += " OR inv = :stale"
			values[":stale"] = table.SAttr(l.Replaces)
		}
		_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av,
			ConditionExpression: &cond, ExpressionAttributeValues: values,
		})
		if errors.Is(table.Conflict(err), store.ErrConflict) {
			err = store.ErrOwnedElsewhere
		}
		errs[i] = err
	})
	return errs
}

// DeleteRecordLocators removes the locators of deleted records. A locator left behind
// (a deleted customer's, a purged data source's) is harmless: lookups check that the
// invoice it names still holds the record.
func (s *Store) DeleteRecordLocators(ctx context.Context, accountID string, uuids []string) error {
	keyItems := make([]map[string]types.AttributeValue, len(uuids))
	for i, u := range uuids {
		keyItems[i] = table.KeyAttrs(keys.RecordLocator(accountID, u))
	}
	return s.t.BatchDelete(ctx, keyItems)
}

// InvoiceOfRecord reads the invoice that holds the line item or transaction recordUUID
// (one GetItem for the locator, one for the invoice); store.ErrNotFound when there is none.
func (s *Store) InvoiceOfRecord(ctx context.Context, accountID, recordUUID string) (model.Invoice, error) {
	var loc RecordLocatorItem
	if err := s.t.Get(ctx, keys.RecordLocator(accountID, recordUUID), &loc); err != nil {
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

// RecordHolders decodes the locators of records found in a batch read: record uuid ->
// its locator.
func RecordHolders(found map[keys.Key]map[string]types.AttributeValue, accountID string, records []string) (map[string]RecordLocatorItem, error) {
	out := map[string]RecordLocatorItem{}
	for _, u := range records {
		raw, ok := found[keys.RecordLocator(accountID, u)]
		if !ok {
			continue
		}
		var it RecordLocatorItem
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return nil, err
		}
		out[u] = it
	}
	return out, nil
}

// LiveHolders splits the locators read into those that hold their record's external
// id (their invoice, found in one of the batch reads, holds the record; or it is not
// written yet and the locator is a claim in flight) and the stale ones: a locator left
// behind by a deletion holds nothing.
func LiveHolders(accountID string, holders map[string]RecordLocatorItem, now time.Time,
	reads ...map[keys.Key]map[string]types.AttributeValue) (live, stale map[string]string, err error) {
	live, stale = map[string]string{}, map[string]string{}
	for rec, loc := range holders {
		invUUID := loc.InvoiceUUID
		found := false
		for _, read := range reads {
			raw, ok := read[keys.Invoice(accountID, invUUID)]
			if !ok {
				continue
			}
			found = true
			var it InvoiceItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return nil, nil, err
			}
			if holds(it.Invoice(accountID), rec) {
				live[rec] = invUUID
			} else {
				stale[rec] = invUUID
			}
			break
		}
		switch {
		case found:
		case loc.At > 0 && now.Sub(time.Unix(loc.At, 0)) < store.RecordClaimInFlight:
			live[rec] = invUUID
		default:
			stale[rec] = invUUID
		}
	}
	return live, stale, nil
}
