package series

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type metricsSubscriptionItem struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
	ET string `dynamodbav:"et"`
	store.MetricsSubscription
}

type invalidInvoiceItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	ET     string `dynamodbav:"et"`
	GSI1PK string `dynamodbav:"GSI1PK"`
	GSI1SK string `dynamodbav:"GSI1SK"`
	store.InvalidInvoice
}

// WriteMetricsView applies a view change with batched writes. Every write is a plain
// put or delete of a key derived from the data, so repeating it is harmless.
func (s *Store) WriteMetricsView(ctx context.Context, c store.MetricsViewChange) error {
	var reqs []types.WriteRequest
	for _, m := range c.DeleteSubscriptions {
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: table.KeyAttrs(metricsSubscriptionKey(m))}})
	}
	for _, v := range c.DeleteInvalid {
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: table.KeyAttrs(invalidInvoiceKey(v))}})
	}
	add := func(item any) error {
		av, err := attributevalue.MarshalMap(item)
		if err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
		return nil
	}
	for _, m := range c.PutSubscriptions {
		k := metricsSubscriptionKey(m)
		if err := add(metricsSubscriptionItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsSubscription, MetricsSubscription: m}); err != nil {
			return err
		}
	}
	for _, v := range c.PutInvalid {
		k := invalidInvoiceKey(v)
		if err := add(invalidInvoiceItem{PK: k.PK, SK: k.SK, ET: keys.TypeInvalidInvoice,
			GSI1PK: keys.InvalidInvoicesByAccount(v.AccountID), GSI1SK: v.InvoiceUUID, InvalidInvoice: v}); err != nil {
			return err
		}
	}
	return s.t.BatchWrite(ctx, reqs)
}

// ListMetricsSubscriptions reads one page of a customer's subscription rows, by start date.
func (s *Store) ListMetricsSubscriptions(ctx context.Context, accountID, customerUUID string, limit int,
	start store.PageToken) (store.Page[store.MetricsSubscription], error) {
	q := table.PrefixListing(keys.CustomerPartition(accountID, customerUUID), keys.MetricsSubscriptionPrefix)
	return table.ListPage(ctx, s.t, q, limit, start, func(it metricsSubscriptionItem) store.MetricsSubscription {
		m := it.MetricsSubscription
		m.AccountID = accountID
		return m
	}, nil)
}

// CustomerInvalidInvoices reads the invalid-invoice markers of one customer.
func (s *Store) CustomerInvalidInvoices(ctx context.Context, accountID, customerUUID string) ([]store.InvalidInvoice, error) {
	var items []invalidInvoiceItem
	if err := s.t.QueryPrefix(ctx, keys.CustomerPartition(accountID, customerUUID), keys.InvalidInvoicePrefix, &items); err != nil {
		return nil, err
	}
	out := make([]store.InvalidInvoice, len(items))
	for i, it := range items {
		out[i] = it.InvalidInvoice
		out[i].AccountID = accountID
	}
	return out, nil
}

// IsInvoiceInvalid tells whether the engine left an invoice of the customer out, and why.
func (s *Store) IsInvoiceInvalid(ctx context.Context, accountID, customerUUID, invoiceUUID string) (string, bool, error) {
	var it invalidInvoiceItem
	err := s.t.Get(ctx, keys.InvalidInvoice(accountID, customerUUID, invoiceUUID), &it)
	if err == store.ErrNotFound {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return it.Reason, true, nil
}

func metricsSubscriptionKey(m store.MetricsSubscription) keys.Key {
	return keys.MetricsSubscription(m.AccountID, m.CustomerUUID, m.Order())
}

func invalidInvoiceKey(v store.InvalidInvoice) keys.Key {
	return keys.InvalidInvoice(v.AccountID, v.CustomerUUID, v.InvoiceUUID)
}
