package store

import (
	"context"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/timefmt"
)

// MetricsState is a customer's last applied metrics result: its hash and an opaque
// (compressed) encoding. The recomputation compares the hash to skip all writes when
// nothing changed, and decodes the data to know what to replace and what to subtract
// from the account series.
type MetricsState struct {
	Hash string
	Data []byte
}

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

// Identity identifies the row among the account's: its customer and its place.
func (m MetricsSubscription) Identity() [3]string {
	return [3]string{m.AccountID, m.CustomerUUID, m.Order()}
}

// InvalidInvoice is an invoice the engine left out, with the reason.
type InvalidInvoice struct {
	AccountID    string `dynamodbav:"account_id" json:"-"`
	CustomerUUID string `dynamodbav:"customer_uuid" json:"c"`
	InvoiceUUID  string `dynamodbav:"invoice_uuid" json:"u"`
	ExternalID   string `dynamodbav:"external_id" json:"x"`
	Reason       string `dynamodbav:"reason" json:"r"`
}

// Identity identifies the marker among the account's: its customer and its invoice.
func (v InvalidInvoice) Identity() [3]string {
	return [3]string{v.AccountID, v.CustomerUUID, v.InvoiceUUID}
}

// MetricsViewChange is what a recomputation writes to the views: rows to put (new or
// changed) and rows to delete (by their Identity). The caller computes it from the previous
// result, so an unchanged customer has an empty change.
type MetricsViewChange struct {
	PutSubscriptions    []MetricsSubscription
	PutInvalid          []InvalidInvoice
	DeleteSubscriptions []MetricsSubscription
	DeleteInvalid       []InvalidInvoice
}

// Empty reports whether there is nothing to write.
func (c MetricsViewChange) Empty() bool { return c.Writes() == 0 }

// Writes is the number of item writes the change costs.
func (c MetricsViewChange) Writes() int {
	return len(c.PutSubscriptions) + len(c.PutInvalid) + len(c.DeleteSubscriptions) + len(c.DeleteInvalid)
}

// MetricsWake is a customer's pending scheduled recomputation: its result changes by
// itself at Due (a service period ends, a scheduled cancellation takes effect, ...).
type MetricsWake struct {
	AccountID    string    `dynamodbav:"account_id"`
	CustomerUUID string    `dynamodbav:"customer_uuid"`
	Due          time.Time `dynamodbav:"due"`
}

// Connection is a pair of subscriptions (subscription uuids, sub_ form) of a customer
// that the metrics treat as one.
type Connection struct {
	AccountID    string    `dynamodbav:"account_id"`
	CustomerUUID string    `dynamodbav:"customer_uuid"`
	A            string    `dynamodbav:"a"`
	B            string    `dynamodbav:"b"`
	CreatedAt    time.Time `dynamodbav:"created_at"`
}

// MergeRequest is a pending merge of From into Into.
type MergeRequest struct {
	AccountID   string    `dynamodbav:"account_id"`
	IntoUUID    string    `dynamodbav:"into_uuid"`
	FromUUID    string    `dynamodbav:"from_uuid"`
	RequestedAt time.Time `dynamodbav:"requested_at"`
}

// MergedCustomer is into after absorbing from: from's (data source, external id) pairs,
// systems and tags are added (pairs stay aligned, as the customer item keeps them), and
// the tag merged-customer.
func MergedCustomer(into, from model.Customer, tag string) model.Customer {
	next := into
	next.DataSourceUUIDs = append([]string(nil), into.DataSourceUUIDs...)
	next.ExternalIDs = append([]string(nil), into.ExternalIDs...)
	for i, ds := range from.DataSourceUUIDs {
		if i >= len(from.ExternalIDs) {
			break
		}
		dup := false
		for j := range next.DataSourceUUIDs {
			if j < len(next.ExternalIDs) && next.DataSourceUUIDs[j] == ds && next.ExternalIDs[j] == from.ExternalIDs[i] {
				dup = true
			}
		}
		if !dup {
			next.DataSourceUUIDs = append(next.DataSourceUUIDs, ds)
			next.ExternalIDs = append(next.ExternalIDs, from.ExternalIDs[i])
		}
	}
	next.Systems = appendMissing(append([]string(nil), into.Systems...), from.Systems...)
	next.Tags = appendMissing(append([]string(nil), into.Tags...), from.Tags...)
	next.Tags = appendMissing(next.Tags, tag)
	return next
}

func appendMissing(list []string, values ...string) []string {
	for _, v := range values {
		found := false
		for _, have := range list {
			if strings.EqualFold(have, v) {
				found = true
			}
		}
		if !found {
			list = append(list, v)
		}
	}
	return list
}

// ActivityFilter selects the account's activities: From and To bound the date
// (inclusive; zero = unbounded), Type is one movement type or empty, Descending lists
// newest first, After (an activity's place, from ActivityOrder) starts the listing
// after that activity.
type ActivityFilter struct {
	From, To   time.Time
	Type       string
	Descending bool
	After      string
}

// Metrics is what a recomputation keeps of a customer: its last result, the
// Metrics-API rows and markers it wrote, its next scheduled recomputation.
type Metrics interface {
	// GetMetricsState reads the customer's state; the zero state when none was stored.
	GetMetricsState(ctx context.Context, accountID, customerUUID string) (MetricsState, error)
	// PutMetricsState replaces the customer's state prev (the zero state when none is
	// stored) with next, on condition that the stored hash is still prev's: the commit
	// point of a recomputation. ErrConflict when another recomputation committed first.
	PutMetricsState(ctx context.Context, accountID, customerUUID string, prev, next MetricsState) error
	// MetricsStateCommit prepares that commit to go into the transaction of the
	// customer's account series record (SeriesRecordWrite.Guard); chunks of a state
	// larger than one item other than its head are written now.
	MetricsStateCommit(ctx context.Context, accountID, customerUUID string, prev, next MetricsState) (SeriesGuard, error)
	// DropMetricsStateTails deletes the chunks of prev that a committed next does not use.
	DropMetricsStateTails(ctx context.Context, accountID, customerUUID string, prev, next MetricsState) error
	// WriteMetricsView applies a view change with batched writes. Every write is a plain
	// put or delete of a key derived from the data, so repeating it is harmless.
	WriteMetricsView(ctx context.Context, c MetricsViewChange) error
	// ListMetricsSubscriptions reads one page of a customer's subscription rows, by start date.
	ListMetricsSubscriptions(ctx context.Context, accountID, customerUUID string, limit int, start PageToken) (Page[MetricsSubscription], error)
	// CustomerInvalidInvoices reads the invalid-invoice markers of one customer.
	CustomerInvalidInvoices(ctx context.Context, accountID, customerUUID string) ([]InvalidInvoice, error)
	// IsInvoiceInvalid tells whether the engine left an invoice of the customer out, and why.
	IsInvoiceInvalid(ctx context.Context, accountID, customerUUID, invoiceUUID string) (string, bool, error)
	// PutMetricsWake sets (or moves) the customer's wake-up; the item is indexed in GSI2 by
	// the UTC hour it is due in.
	PutMetricsWake(ctx context.Context, w MetricsWake) error
	// DeleteMetricsWake removes the customer's wake-up, if any.
	DeleteMetricsWake(ctx context.Context, accountID, customerUUID string) error
	// DueMetricsWakes lists wake-ups due at or before until, looking back over the hours
	// since (inclusive): one GSI2 query per hour bucket, never a scan.
	DueMetricsWakes(ctx context.Context, since, until time.Time) ([]MetricsWake, error)
}

// Connections are the connected subscription pairs of customers.
type Connections interface {
	// PutConnection records a connected pair (idempotent).
	PutConnection(ctx context.Context, c Connection) error
	// DeleteConnection forgets a connected pair (idempotent).
	DeleteConnection(ctx context.Context, accountID, customerUUID, a, b string) error
	// CustomerConnections lists a customer's connected pairs.
	CustomerConnections(ctx context.Context, accountID, customerUUID string) ([]Connection, error)
}

// Merges are the pending customer merges and the moves a merge makes.
type Merges interface {
	// PutMergeRequest records a merge to carry out (idempotent).
	PutMergeRequest(ctx context.Context, m MergeRequest) error
	// PendingMerges lists the merges waiting to go into a customer, oldest first.
	PendingMerges(ctx context.Context, accountID, intoUUID string) ([]MergeRequest, error)
	// DeleteMergeRequest forgets a merge that has been carried out.
	DeleteMergeRequest(ctx context.Context, m MergeRequest) error
	// ReassignOwner makes a record of the account (its kind and uuid, or id for a
	// subscription event) belong to into instead of from. A record already into's, or
	// gone, is left alone.
	ReassignOwner(ctx context.Context, accountID string, kind OwnedKind, id, fromUUID, intoUUID string) error
	// ReassignCustomerExternalID points a customer external-id reservation at into, so
	// that later imports of from's external id land on the merged customer.
	ReassignCustomerExternalID(ctx context.Context, accountID, dsUUID, externalID, fromUUID, intoUUID string) error
	// MoveContact makes a contact into's, moving its e-mail reservation with it, in one
	// transaction. ErrDuplicateEmail when into already has a contact with that e-mail.
	MoveContact(ctx context.Context, c model.Contact, into model.Customer) error
	// MoveNote re-homes a note in into's partition and points its locator there, then
	// drops the old copy, in one transaction.
	MoveNote(ctx context.Context, n model.Note, intoUUID string) error
}

// Activities are the activity log's listings.
type Activities interface {
	// ListActivities reads one page of the account's activities from GSI1 (all types) or
	// GSI2 (one type), in date order: one Query.
	ListActivities(ctx context.Context, accountID string, f ActivityFilter, limit int, start PageToken) (Page[Activity], error)
	// ListCustomerActivities reads one page of a customer's activities, oldest first.
	ListCustomerActivities(ctx context.Context, accountID, customerUUID string, limit int, start PageToken) (Page[Activity], error)
	// ActivityOrder finds an activity of the account by uuid and returns its place in
	// the activity log (its index sort key), for start-after; ErrNotFound when
	// no activity of the account has that uuid.
	ActivityOrder(ctx context.Context, accountID, activityUUID string) (string, error)
}

// OwnedKind is a kind of imported record that a customer owns, which a merge gives to
// the customer it merges into (Merges.ReassignOwner).
type OwnedKind uint8

const (
	OwnedInvoice OwnedKind = iota + 1
	OwnedSubscription
	OwnedSubscriptionEvent
)
