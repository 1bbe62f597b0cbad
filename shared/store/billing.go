package store

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/model"
)

// BillingIndex lists one customer's invoices and subscriptions (their items live in
// their own partitions, found by uuid) and the plans they use. One item per customer
// replaces a per-invoice index entry: a customer's listing is one read plus one batch
// read, and an import message pays one index write for all its invoices.
type BillingIndex struct {
	AccountID    string
	CustomerUUID string
	// Invoices maps invoice uuid -> invoice date (Unix seconds), the listing order.
	Invoices map[string]int64
	// Subscriptions maps subscription uuid -> creation time (Unix nanoseconds).
	Subscriptions map[string]int64
	// Plans maps plan uuid -> its data source for every plan the customer's line items
	// use; each entry holds one reference on the plan (planReference in the DynamoDB implementation).
	Plans map[string]string
	// Events maps subscription event id (decimal) -> effective date (Unix seconds):
	// the customer's events, which recompute reads by id.
	Events map[string]int64
	// Version is 0 while the item does not exist.
	Version int64
}

// Clone returns a copy that can be changed without touching idx.
func (idx BillingIndex) Clone() BillingIndex {
	idx.Invoices = maps.Clone(idx.Invoices)
	idx.Subscriptions = maps.Clone(idx.Subscriptions)
	idx.Plans = maps.Clone(idx.Plans)
	idx.Events = maps.Clone(idx.Events)
	return idx
}

// ErrPlanGone: a plan that line items use no longer exists.
var ErrPlanGone = errors.New("plan no longer exists")

// EventIDs lists the index's subscription event ids.
func (idx BillingIndex) EventIDs() []int64 {
	out := make([]int64, 0, len(idx.Events))
	for k := range idx.Events {
		if id, err := strconv.ParseInt(k, 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// SortedInvoiceUUIDs lists the index's invoices by date, then uuid (listing order).
func (idx BillingIndex) SortedInvoiceUUIDs() []string {
	uuids := make([]string, 0, len(idx.Invoices))
	for u := range idx.Invoices {
		uuids = append(uuids, u)
	}
	slices.SortFunc(uuids, func(a, b string) int {
		return cmp.Or(cmp.Compare(idx.Invoices[a], idx.Invoices[b]), cmp.Compare(a, b))
	})
	return uuids
}

// InvoiceFilter narrows an invoice listing; empty fields do not filter.
type InvoiceFilter struct {
	DataSourceUUID string
	CustomerUUID   string
	ExternalID     string
}

// ErrOwnedElsewhere: the external id belongs to an object of another customer.
var ErrOwnedElsewhere = errors.New("external id used by another customer")

// Errors of the subscription event writes.
var (
	// ErrEventExists: an event with other content already has this id (it was
	// created with the same external id in the data source).
	ErrEventExists = errors.New("subscription event id already used")
	// ErrEventExternalIDTaken: another event of the data source has this external id.
	ErrEventExternalIDTaken = errors.New("subscription event external id already used")
)

// BillingIndexes are the customers' billing indexes (their invoices, subscriptions, plans and events).
type BillingIndexes interface {
	// GetBillingIndex reads a customer's index; an absent one is empty with Version 0.
	GetBillingIndex(ctx context.Context, accountID, customerUUID string) (BillingIndex, error)
	// SaveBillingIndex writes next over old, conditional on old's version (ErrConflict
	// when another writer got there first: re-read and re-apply). A plan that next adds
	// gets its reference before the index is written, and a plan it drops releases its
	// reference after: a crash in between can leave one reference too many (the plan
	// stays protected), never one too few. This costs two plain writes instead of a
	// transaction (which would double the write units; moto also copies the whole table
	// for every transaction).
	SaveBillingIndex(ctx context.Context, old, next BillingIndex) error
	// PutBillingIndex writes next over old, conditional on old's version (ErrConflict
	// when another writer got there first), and leaves the plan references to the
	// caller: the import worker takes them for a whole batch at once (AddPlanReferences).
	PutBillingIndex(ctx context.Context, old, next BillingIndex) error
	// IndexSubscriptionEvents adds events (id -> effective date, Unix seconds) to a
	// customer's billing index and drops others, re-reading the index when another
	// writer changed it meanwhile. Callers index an event before writing it and unindex
	// it after deleting it: listings and recompute skip an indexed id that is absent.
	IndexSubscriptionEvents(ctx context.Context, accountID, customerUUID string, add map[int64]int64, drop []int64) error
	// ReviseBilling brings a customer's index and subscriptions in line with its invoices
	// after invoices (dropped) or line items (lines: those removed or changed) went: the
	// subscriptions of those lines that no remaining line item uses go, the others take
	// their plan, latest period and (unless the subscriptions API set them) cancellation
	// dates from the remaining ones, and the index drops the invoices, those
	// subscriptions and the plans nothing uses any more, releasing their references.
	ReviseBilling(ctx context.Context, accountID, customerUUID string, dropped []string, lines []model.LineItem, now time.Time) error
}

// Invoices are the invoices with their line items and transactions.
type Invoices interface {
	// GetInvoice reads an invoice by uuid.
	GetInvoice(ctx context.Context, accountID, invoiceUUID string) (model.Invoice, error)
	// GetInvoices reads invoices by uuid (one BatchGetItem per 100); missing ones are
	// absent from the map.
	GetInvoices(ctx context.Context, accountID string, uuids []string) (map[string]model.Invoice, error)
	// PutInvoices writes invoices, each with a condition that it is new or already the
	// customer's: the condition is what keeps an invoice external id unique in its data
	// source (BatchWriteItem has no conditions, so each is a PutItem; they run in
	// parallel). The result has one error per invoice (nil, ErrOwnedElsewhere or a
	// failure); a retry rewrites the same keys, so it never duplicates.
	PutInvoices(ctx context.Context, invs []model.Invoice) []error
	// OwnedInvoices reads the invoices of the index that (still) belong to its customer.
	OwnedInvoices(ctx context.Context, idx BillingIndex, uuids []string) ([]model.Invoice, error)
	// SetInvoiceStatus changes the status of inv (as read) to status with one UpdateItem that
	// touches only the status and updated_at. It is conditional on the invoice still
	// belonging to inv's customer and still having the status it was read with, so a
	// concurrent change is never overwritten: ErrConflict then, and the caller re-reads.
	// It returns the invoice as stored afterwards.
	SetInvoiceStatus(ctx context.Context, inv model.Invoice, status string, now time.Time) (model.Invoice, error)
	// DeleteInvoice removes an invoice with its line items and transactions. A
	// subscription that no other invoice of the customer uses goes with it (one still
	// used takes its plan from the remaining line items), and the index drops the
	// invoice, those subscriptions and the plans nothing uses any more, releasing their
	// references. The invoice goes first: a failure after it leaves an index entry that
	// listings skip and references that err on the safe side, never a missing one.
	DeleteInvoice(ctx context.Context, inv model.Invoice, now time.Time) error
	// DeleteInvoices removes several invoices of one customer as DeleteInvoice does, with
	// one revision of the customer's index for all of them.
	DeleteInvoices(ctx context.Context, accountID, customerUUID string, invs []model.Invoice, now time.Time) error
	// DeleteInvoiceItem removes an invoice item if it still belongs to the customer.
	DeleteInvoiceItem(ctx context.Context, inv model.Invoice) error
	// SaveInvoice writes next over old (the invoice as read), with its line items and
	// transactions, conditional on the invoice still belonging to old's customer and being
	// unchanged since it was read (its UpdatedAt): ErrConflict when another writer got
	// there first, and the caller re-reads. next.UpdatedAt must be new.
	SaveInvoice(ctx context.Context, old, next model.Invoice) error
	// InvoiceOfRecord reads the invoice that holds the line item or transaction with
	// that uuid, through its locator; ErrNotFound when there is none.
	InvoiceOfRecord(ctx context.Context, accountID, recordUUID string) (model.Invoice, error)
	// DeleteRecordLocators removes the locators of deleted line items and transactions. One
	// left behind is harmless: lookups check that the invoice it names still holds the record.
	DeleteRecordLocators(ctx context.Context, accountID string, uuids []string) error
	// ListInvoices reads one page of the account's invoices from start: customer by
	// customer in the customer listing's order, and within a customer by date, then uuid.
	// Next is where the next page starts: after the last invoice returned, or where the
	// reading stopped when HasMore; nil for an empty last page. Total is known only when
	// it costs no more requests. Invoices have no account-wide index (one would double
	// their write cost), so a round reads a slice of customers (one Query), their billing
	// indexes (one BatchGetItem) and the next invoices (one BatchGetItem per 100). The
	// rounds stop at invoicePageRequests requests: a page that is not full by then comes
	// back short, with HasMore and Next where the reading stopped. An external id needs no
	// walk: its invoice uuid is derived, one per data source.
	ListInvoices(ctx context.Context, accountID string, f InvoiceFilter, limit int, start PageToken) (Page[model.Invoice], error)
}

// Subscriptions are the subscriptions the invoices make.
type Subscriptions interface {
	// GetSubscription reads a subscription by uuid.
	GetSubscription(ctx context.Context, accountID, subUUID string) (model.Subscription, error)
	// GetSubscriptions reads subscriptions by uuid; missing ones are absent from the map.
	GetSubscriptions(ctx context.Context, accountID string, uuids []string) (map[string]model.Subscription, error)
	// PutSubscriptions writes subscriptions that are new or already the customer's (the
	// condition keeps a subscription external id unique in its data source); one error
	// per subscription, ErrOwnedElsewhere for a clash.
	PutSubscriptions(ctx context.Context, subs []model.Subscription) []error
	// SetCancellationDates replaces a subscription's cancellation history.
	SetCancellationDates(ctx context.Context, sub model.Subscription, dates []time.Time, now time.Time) (model.Subscription, error)
	// DeleteSubscriptionItem removes a subscription if it still belongs to the customer.
	DeleteSubscriptionItem(ctx context.Context, sub model.Subscription) error
	// ListCustomerSubscriptions is one page of a customer's subscriptions, oldest first
	// (by creation, then uuid), as its billing index lists them; one it lists but does not
	// own (moved by a merge) is skipped but counts in the page. Total is the index's size.
	ListCustomerSubscriptions(ctx context.Context, accountID, customerUUID string, limit int, start PageToken) (Page[model.Subscription], error)
}

// SubscriptionEvents are the subscription events.
type SubscriptionEvents interface {
	// CreateSubscriptionEvent writes a new event: ErrEventExists when its id is taken,
	// ErrEventExternalIDTaken when a PATCH gave its external id to another event.
	CreateSubscriptionEvent(ctx context.Context, e model.SubscriptionEvent) error
	// SaveSubscriptionEvent writes next over old (the same event as read): ErrConflict
	// when it changed or went meanwhile. A new external id is taken in the same
	// transaction, refused with ErrEventExternalIDTaken when an event holds it, and the
	// old one's claim is released; a refused write changes nothing.
	SaveSubscriptionEvent(ctx context.Context, old, next model.SubscriptionEvent) error
	// DeleteSubscriptionEvent removes an event, with the claim of its external id, if it
	// still belongs to its customer (ErrConflict when a merge moved it meanwhile).
	DeleteSubscriptionEvent(ctx context.Context, e model.SubscriptionEvent) error
	// SubscriptionEventByExternalID finds the event of a data source with an external
	// id: the one created with it, else the one its claim item points at.
	SubscriptionEventByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (model.SubscriptionEvent, error)
	// GetSubscriptionEvent reads one event.
	GetSubscriptionEvent(ctx context.Context, accountID string, id int64) (model.SubscriptionEvent, error)
	// GetSubscriptionEvents reads events by id; missing ones are absent from the map.
	GetSubscriptionEvents(ctx context.Context, accountID string, idList []int64) (map[int64]model.SubscriptionEvent, error)
	// PutSubscriptionEvents writes events with BatchWriteItem (25 per request); their
	// derived ids make a repeat overwrite instead of duplicating.
	PutSubscriptionEvents(ctx context.Context, accountID string, events []model.SubscriptionEvent) error
	// ListSubscriptionEvents reads one page of the account's subscription events in id
	// order after start, those keep accepts (nil: all): at most eventPageRequests Queries.
	ListSubscriptionEvents(ctx context.Context, accountID string, keep func(model.SubscriptionEvent) bool, limit int, start PageToken) (Page[model.SubscriptionEvent], error)
	// CountSubscriptionEvents counts the account's events that keep accepts (nil: all)
	// when one Query response (up to 1 MB of events) holds them all; ok is false when
	// there are more.
	CountSubscriptionEvents(ctx context.Context, accountID string, keep func(model.SubscriptionEvent) bool) (n int, ok bool, err error)
}
