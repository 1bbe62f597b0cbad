package dynamo

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
)

// maxTransactItems is TransactWriteItems' limit.
const maxTransactItems = 100

// ReserveImportedCustomers takes customer external ids of a data source for their
// customers with conditional puts (never read-then-write), so the import and POST
// /v1/customers can never create the same customer twice; taking one again for the
// same customer (a retry) succeeds. The puts go in one transaction; it is all or
// nothing, so when it is cancelled the ids held by other customers get ErrConflict
// and the rest are taken again without them. The result holds each reservation's
// outcome, in order.
func (s *Store) ReserveImportedCustomers(ctx context.Context, rs []store.CustomerReservation) []error {
	errs := make([]error, len(rs))
	for start := 0; start < len(rs); start += maxTransactItems {
		end := min(start+maxTransactItems, len(rs))
		s.reserveCustomers(ctx, rs[start:end], errs[start:end])
	}
	return errs
}

func (s *Store) reserveCustomers(ctx context.Context, rs []store.CustomerReservation, errs []error) {
	puts := make([]*types.Put, len(rs))
	for i, r := range rs {
		ek := keys.CustomerExternalID(r.AccountID, r.DataSourceUUID, r.ExternalID)
		item, err := attributevalue.MarshalMap(uniqueItem{PK: ek.PK, SK: ek.SK, ET: keys.TypeCustomerExternalID, CustomerUUID: r.CustomerUUID})
		if err != nil {
			errs[i] = err
			continue
		}
		puts[i] = &types.Put{TableName: &s.table, Item: item,
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": sAttr(r.CustomerUUID)}}
	}
	var pending []int
	for i := range rs {
		if errs[i] == nil {
			pending = append(pending, i)
		}
	}
	for len(pending) > 0 {
		if len(pending) == 1 {
			// One write costs half as much outside a transaction.
			p := puts[pending[0]]
			_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: p.TableName, Item: p.Item,
				ConditionExpression: p.ConditionExpression, ExpressionAttributeValues: p.ExpressionAttributeValues,
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			errs[pending[0]] = conflict(err)
			return
		}
		items := make([]types.TransactWriteItem, len(pending))
		for k, i := range pending {
			items[k] = types.TransactWriteItem{Put: puts[i]}
		}
		pending = afterCancellation(s.transactWrite(ctx, items), pending, errs)
	}
}

// afterCancellation records the outcome of a reservation transaction and returns
// the reservations to try again: those the cancellation did not concern, when it
// named a reason for the others.
func afterCancellation(err error, pending []int, errs []error) []int {
	codes := cancellationReasons(err)
	if err == nil || len(codes) != len(pending) {
		for _, i := range pending {
			errs[i] = err
		}
		return nil
	}
	var again []int
	for k, code := range codes {
		switch code {
		case "", "None":
			again = append(again, pending[k])
		case conditionFailed:
			errs[pending[k]] = store.ErrConflict
		default: // a concurrent transaction on the item, throttling: the caller retries
			errs[pending[k]] = err
		}
	}
	if len(again) == len(pending) {
		// Cancelled without a reason for any of them: do not loop.
		for _, i := range pending {
			errs[i] = err
		}
		return nil
	}
	return again
}

// AddPlanReferences adds n references to a plan at once (one per customer index
// that starts using it); ErrNotFound if the plan is gone.
func (s *Store) AddPlanReferences(ctx context.Context, accountID, dsUUID, planUUID string, n int) error {
	return s.applyPlanReference(ctx, s.planReference(accountID, dsUUID, planUUID, n))
}

// PutImportedRecords writes the records with BatchWriteItem, 25 items per request,
// the requests of one step in parallel.
func (s *Store) PutImportedRecords(ctx context.Context, r store.ImportedRecords) error {
	var items []any
	for _, c := range r.NewCustomers {
		if c.Email != "" {
			items = append(items, customerEmailIndexItem(c))
		}
	}
	for _, idx := range r.NewIndexes {
		items = append(items, newBillingIndexItem(idx, 1))
	}
	for _, inv := range r.Invoices {
		items = append(items, newInvoiceItem(inv))
	}
	for _, sub := range r.Subscriptions {
		items = append(items, newSubscriptionItem(sub))
	}
	for _, e := range r.Events {
		items = append(items, newSubscriptionEventItem(e.AccountID, e))
	}
	if err := s.putItemsBatched(ctx, items); err != nil {
		return err
	}
	customers := make([]any, len(r.NewCustomers))
	for i, c := range r.NewCustomers {
		customers[i] = newCustomerItem(c)
	}
	return s.putItemsBatched(ctx, customers)
}

// PutImportCustomerStatuses records the outcome of several customers at once.
func (s *Store) PutImportCustomerStatuses(ctx context.Context, sts []store.ImportCustomerStatusWrite) error {
	items := make([]any, len(sts))
	for i, w := range sts {
		items[i] = newImportCustomerItem(w.AccountID, w.ImportID, w.Status)
	}
	return s.putItemsBatched(ctx, items)
}

// putItemsBatched marshals items and writes them 25 per BatchWriteItem, the requests
// in parallel (bounded by writeConcurrency).
func (s *Store) putItemsBatched(ctx context.Context, items []any) error {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		av, err := attributevalue.MarshalMap(it)
		if err != nil {
			return err
		}
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: av}}
	}
	chunks := (len(reqs) + 24) / 25
	errs := make([]error, chunks)
	parallel.For(chunks, writeConcurrency, func(i int) {
		errs[i] = s.batchWrite(ctx, reqs[i*25:min((i+1)*25, len(reqs))])
	})
	return errors.Join(errs...)
}
