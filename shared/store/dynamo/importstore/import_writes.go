package importstore

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/billing"
	"github.com/subsight/subsight/shared/store/dynamo/crm"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// ReserveImportedCustomers takes customer external ids of a data source for their
// customers with conditional puts (never read-then-write), so the import and POST
// /v1/customers can never create the same customer twice; taking one again for the
// same customer (a retry) succeeds. One PutItem each, in parallel (1 WCU, half of what a
// transaction's write costs; nothing needs them taken together): ErrConflict for an
// id another customer holds. The result holds each reservation's outcome, in order.
func (s *Store) ReserveImportedCustomers(ctx context.Context, rs []store.CustomerReservation) []error {
	errs := make([]error, len(rs))
	parallel.For(len(rs), table.WriteConcurrency, func(i int) {
		r := rs[i]
		ek := keys.CustomerExternalID(r.AccountID, r.DataSourceUUID, r.ExternalID)
		item, err := attributevalue.MarshalMap(crm.UniqueItem{PK: ek.PK, SK: ek.SK, ET: keys.TypeCustomerExternalID, CustomerUUID: r.CustomerUUID})
		if err != nil {
			errs[i] = err
			return
		}
		_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: item,
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": table.SAttr(r.CustomerUUID)},
		})
		errs[i] = table.Conflict(err)
	})
	return errs
}

// PutImportedRecords writes the records with BatchWriteItem, 25 items per request,
// the requests of one step in parallel.
func (s *Store) PutImportedRecords(ctx context.Context, r store.ImportedRecords) error {
	var items []any
	for _, c := range r.NewCustomers {
		if c.Email != "" {
			items = append(items, crm.CustomerEmailIndexItem(c))
		}
	}
	for _, idx := range r.NewIndexes {
		items = append(items, billing.NewBillingIndexItem(idx, 1))
	}
	for _, inv := range r.Invoices {
		items = append(items, billing.NewInvoiceItem(inv))
	}
	for _, sub := range r.Subscriptions {
		items = append(items, billing.NewSubscriptionItem(sub))
	}
	for _, e := range r.Events {
		items = append(items, billing.NewSubscriptionEventItem(e.AccountID, e))
	}
	if err := s.t.PutItemsBatched(ctx, items); err != nil {
		return err
	}
	customers := make([]any, len(r.NewCustomers))
	for i, c := range r.NewCustomers {
		customers[i] = crm.NewCustomerItem(c)
	}
	return s.t.PutItemsBatched(ctx, customers)
}

// PutImportCustomerStatuses records the outcome of several customers at once.
func (s *Store) PutImportCustomerStatuses(ctx context.Context, sts []store.ImportCustomerStatusWrite) error {
	items := make([]any, len(sts))
	for i, w := range sts {
		items[i] = newImportCustomerItem(w.AccountID, w.ImportID, w.Status)
	}
	return s.t.PutItemsBatched(ctx, items)
}
