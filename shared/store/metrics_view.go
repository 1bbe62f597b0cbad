package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/timefmt"
)

// MetricsSubscription is one row of the Metrics-API subscriptions view of a customer
// (GET /v1/customers/{uuid}/subscriptions), as the recomputation last wrote it.
type MetricsSubscription struct {
	AccountID         string     `dynamodbav:"account_id" json:"-"`
	CustomerUUID      string     `dynamodbav:"customer_uuid" json:"c"`
	UUID              string     `dynamodbav:"uuid" json:"u"` // bare uuid (no sub_ prefix)
	ID                int64      `dynamodbav:"id" json:"i"`
	ExternalID        string     `dynamodbav:"external_id" json:"x"`
	SetExternalID     string     `dynamodbav:"set_external_id" json:"sx,omitempty"`
	DataSourceUUID    string     `dynamodbav:"data_source_uuid" json:"ds"`
	PlanUUID          string     `dynamodbav:"plan_uuid" json:"p"`
	PlanName          string     `dynamodbav:"plan" json:"pn"`
	Quantity          int64      `dynamodbav:"quantity" json:"q"`
	MRR               int64      `dynamodbav:"mrr" json:"m"`
	ARR               int64      `dynamodbav:"arr" json:"a"`
	Status            string     `dynamodbav:"status" json:"s"`
	BillingCycle      string     `dynamodbav:"billing_cycle" json:"bc"`
	BillingCycleCount int        `dynamodbav:"billing_cycle_count" json:"bn"`
	StartDate         time.Time  `dynamodbav:"start_date" json:"sd"`
	EndDate           *time.Time `dynamodbav:"end_date,omitempty" json:"ed,omitempty"`
	Currency          string     `dynamodbav:"currency" json:"cu"`
}

// Order is the row's sort key within the customer: start date, then uuid.
func (m MetricsSubscription) Order() string {
	return timefmt.Nanos(m.StartDate) + "#" + m.UUID
}

// Key is the row's primary key.
func (m MetricsSubscription) Key() keys.Key {
	return keys.MetricsSubscription(m.AccountID, m.CustomerUUID, m.Order())
}

// InvalidInvoice is an invoice the engine left out, with the reason.
type InvalidInvoice struct {
	AccountID    string `dynamodbav:"account_id" json:"-"`
	CustomerUUID string `dynamodbav:"customer_uuid" json:"c"`
	InvoiceUUID  string `dynamodbav:"invoice_uuid" json:"u"`
	ExternalID   string `dynamodbav:"external_id" json:"x"`
	Reason       string `dynamodbav:"reason" json:"r"`
}

// Key is the marker's primary key.
func (v InvalidInvoice) Key() keys.Key {
	return keys.InvalidInvoice(v.AccountID, v.CustomerUUID, v.InvoiceUUID)
}

type metricsSubscriptionItem struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
	ET string `dynamodbav:"et"`
	MetricsSubscription
}

type invalidInvoiceItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	ET     string `dynamodbav:"et"`
	GSI1PK string `dynamodbav:"GSI1PK"`
	GSI1SK string `dynamodbav:"GSI1SK"`
	InvalidInvoice
}

// MetricsViewChange is what a recomputation writes to the views: rows to put (new or
// changed) and keys of rows to delete. The caller computes it from the previous result,
// so an unchanged customer has an empty change.
type MetricsViewChange struct {
	PutSubscriptions []MetricsSubscription
	PutInvalid       []InvalidInvoice
	Delete           []keys.Key
}

// Empty reports whether there is nothing to write.
func (c MetricsViewChange) Empty() bool {
	return len(c.PutSubscriptions)+len(c.PutInvalid)+len(c.Delete) == 0
}

// Writes is the number of item writes the change costs.
func (c MetricsViewChange) Writes() int {
	return len(c.PutSubscriptions) + len(c.PutInvalid) + len(c.Delete)
}

// WriteMetricsView applies a view change with batched writes. Every write is a plain
// put or delete of a key derived from the data, so repeating it is harmless.
func (s *Store) WriteMetricsView(ctx context.Context, c MetricsViewChange) error {
	var reqs []types.WriteRequest
	for _, k := range c.Delete {
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: keyAttrs(k)}})
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
		k := m.Key()
		if err := add(metricsSubscriptionItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsSubscription, MetricsSubscription: m}); err != nil {
			return err
		}
	}
	for _, v := range c.PutInvalid {
		k := v.Key()
		if err := add(invalidInvoiceItem{PK: k.PK, SK: k.SK, ET: keys.TypeInvalidInvoice,
			GSI1PK: keys.InvalidInvoicesByAccount(v.AccountID), GSI1SK: v.InvoiceUUID, InvalidInvoice: v}); err != nil {
			return err
		}
	}
	return s.batchWrite(ctx, reqs)
}

// ListMetricsSubscriptions reads one page of a customer's subscription rows, by start date.
func (s *Store) ListMetricsSubscriptions(ctx context.Context, accountID, customerUUID string, limit int,
	start PageToken) (Page[MetricsSubscription], error) {
	q := prefixListing(keys.CustomerPartition(accountID, customerUUID), keys.MetricsSubscriptionPrefix)
	return listPage(ctx, s, q, limit, start, func(it metricsSubscriptionItem) MetricsSubscription {
		m := it.MetricsSubscription
		m.AccountID = accountID
		return m
	}, nil)
}

// CustomerInvalidInvoices reads the invalid-invoice markers of one customer.
func (s *Store) CustomerInvalidInvoices(ctx context.Context, accountID, customerUUID string) ([]InvalidInvoice, error) {
	var items []invalidInvoiceItem
	if err := s.queryPrefix(ctx, keys.CustomerPartition(accountID, customerUUID), keys.InvalidInvoicePrefix, &items); err != nil {
		return nil, err
	}
	out := make([]InvalidInvoice, len(items))
	for i, it := range items {
		out[i] = it.InvalidInvoice
		out[i].AccountID = accountID
	}
	return out, nil
}

// IsInvoiceInvalid tells whether the engine left an invoice of the customer out, and why.
func (s *Store) IsInvoiceInvalid(ctx context.Context, accountID, customerUUID, invoiceUUID string) (string, bool, error) {
	var it invalidInvoiceItem
	err := s.get(ctx, keys.InvalidInvoice(accountID, customerUUID, invoiceUUID), &it)
	if err == ErrNotFound {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return it.Reason, true, nil
}
