// Package stripesync applies verified Stripe events, and a backfill's records of one
// Stripe customer, to a data source: it maps them with package stripesource and stores
// them through the json_import pipeline's own per-customer step (imports.Pipeline), so
// that a Stripe customer's records are stored, and its metrics recomputed, as an
// imported customer's are. It remembers the events applied (a redelivery changes
// nothing), the latest snapshot applied of each Stripe object (an older one arriving
// late never overwrites it) and the prices seen (invoice lines name them by id). No
// HTTP and no queue: the webhook worker calls ApplyEvent, the backfill ApplyCustomer.
// docs/stripe.md, "Applying events", has the rules.
package stripesync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripesource"
)

// Storage is the part of the store the sync reads and writes besides the pipeline's.
type Storage interface {
	store.StripeSync
	GetAccount(ctx context.Context, accountID string) (model.Account, error)
	GetDataSource(ctx context.Context, accountID, dsUUID string) (model.DataSource, error)
	GetInvoice(ctx context.Context, accountID, invoiceUUID string) (model.Invoice, error)
	GetCustomer(ctx context.Context, accountID, customerUUID string) (model.Customer, error)
	SaveCustomer(ctx context.Context, old, c model.Customer) error
	CustomerUUIDByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (string, error)
	ListCustomerSubscriptions(ctx context.Context, accountID, customerUUID string, limit int, start store.PageToken) (store.Page[model.Subscription], error)
	store.AttributeDefinitions
}

// Reader reads from a Stripe account what an event does not carry (stripe-go with the
// connection's restricted key). A missing object is stripe's 404 or ErrNotFound.
type Reader interface {
	// Price reads a price.
	Price(ctx context.Context, id string) (*stripe.Price, error)
	// InvoiceLines reads every line of an invoice (the event holds the first page).
	InvoiceLines(ctx context.Context, invoiceID string) ([]*stripe.InvoiceLineItem, error)
	// InvoiceOfPayment is the id of the invoice a payment intent or charge paid ("" if
	// none), through its invoice payment.
	InvoiceOfPayment(ctx context.Context, paymentIntentID, chargeID string) (string, error)
}

// Readers gives the reader of a connection: nil, nil when it has no API key.
type Readers func(ctx context.Context, conn model.StripeConnection) (Reader, error)

// Config is what a Sync is built from.
type Config struct {
	Pipeline *imports.Pipeline
	Store    Storage
	// Jobs takes the recomputations of the customers an event changed.
	Jobs jobs.Sender
	Now  func() time.Time
	// Readers is optional: without it (or for a connection without an API key) what an
	// event does not carry is waited for in other events (docs/stripe.md).
	Readers Readers
	// Purger removes a customer deleted in Stripe from the data source when the
	// connection's settings say "delete" (workers.Deps); without it such a customer is
	// kept anonymised.
	Purger Purger
}

// Purger removes a customer's records of a data source, and the customer with them
// when it has no other source, asking for its recomputation.
type Purger interface {
	PurgeCustomerSource(ctx context.Context, c model.Customer, dsUUID, reason string) error
}

// Sync applies Stripe events and backfilled records.
type Sync struct {
	Config
	mu      sync.Mutex
	sources map[string]source // by account and data source
}

// New returns a Sync.
func New(c Config) *Sync { return &Sync{Config: c, sources: map[string]source{}} }

// EventMarkerTTL is how long an applied event is remembered: Stripe retries a delivery
// for three days and lists events for thirty.
const EventMarkerTTL = 30 * 24 * time.Hour

// ErrNotYet is a retryable refusal: the event needs a record that another event brings
// (its invoice, a payment, a price); deliver it again later. Each object counts these
// deliveries: after maxMisses the event is applied without the record (an invoice's
// lines of unknown prices as one_time) or dropped (docs/stripe.md, "Applying events").
var ErrNotYet = errors.New("stripesync: waiting for another event")

// ApplyEvent applies one verified event of conn's Stripe account. nil: applied, already
// applied, ignored (an unknown type) or dropped (an object that cannot be mapped, which
// is logged). An error is an infrastructure failure or ErrNotYet: deliver the event again.
func (s *Sync) ApplyEvent(ctx context.Context, conn model.StripeConnection, ev stripe.Event) error {
	h, ok := handlers[ev.Type]
	if !ok {
		return nil
	}
	applied, err := s.Store.StripeEventApplied(ctx, conn.AccountID, conn.DataSourceUUID, ev.ID)
	if err != nil || applied {
		return err
	}
	a, err := s.begin(ctx, conn, "stripe:"+ev.ID)
	if err != nil {
		return err
	}
	err = h(a, ctx, ev)
	var dropped *droppedError
	if errors.As(err, &dropped) {
		slog.WarnContext(ctx, "stripe event dropped", "account_id", conn.AccountID, "data_source_uuid", conn.DataSourceUUID,
			"event_id", ev.ID, "type", string(ev.Type), "reason", dropped.reason)
		err = nil
	}
	if err != nil {
		return err
	}
	return s.Store.MarkStripeEventApplied(ctx, conn.AccountID, conn.DataSourceUUID, ev.ID, s.Now().Add(EventMarkerTTL))
}

// ApplyCustomer applies a backfill's records of one Stripe customer (their plans
// first) by the same path as events, without the event guards: every record is keyed
// by Stripe ids and merged into what is stored, so a backfill and live events end in
// the same records (docs/stripe.md, "Applying events").
func (s *Sync) ApplyCustomer(ctx context.Context, conn model.StripeConnection, stripeCustomerID string, recs stripesource.Records) error {
	a, err := s.begin(ctx, conn, "stripe:backfill:"+stripeCustomerID+":"+strconv.FormatInt(s.Now().UnixNano(), 10))
	if err != nil {
		return err
	}
	if err := a.plans(ctx, recs.Plans); err != nil {
		return err
	}
	recs.Plans = nil
	err = a.apply(ctx, stripeCustomerID, recs)
	var dropped *droppedError
	if errors.As(err, &dropped) {
		slog.WarnContext(ctx, "stripe customer's records dropped", "account_id", conn.AccountID,
			"data_source_uuid", conn.DataSourceUUID, "reason", dropped.reason)
		return nil
	}
	return err
}

// source is what a new customer of a data source needs (imports.Message.System,
// Currency), read once per process and data source.
type source struct {
	ds       model.DataSource
	currency string
}

func (s *Sync) source(ctx context.Context, accountID, dsUUID string) (source, error) {
	key := accountID + "/" + dsUUID
	s.mu.Lock()
	src, ok := s.sources[key]
	s.mu.Unlock()
	if ok {
		return src, nil
	}
	ds, err := s.Store.GetDataSource(ctx, accountID, dsUUID)
	if err != nil {
		return src, err
	}
	acc, err := s.Store.GetAccount(ctx, accountID)
	if err != nil {
		return src, err
	}
	src = source{ds: ds, currency: acc.Currency}
	s.mu.Lock()
	s.sources[key] = src
	s.mu.Unlock()
	return src, nil
}

// applying is one event (or backfilled customer) being applied.
type applying struct {
	*Sync
	conn     model.StripeConnection
	src      source
	importID string
	// reader is opened on first use (readerDone), nil without an API key.
	reader     Reader
	readerDone bool
}

func (s *Sync) begin(ctx context.Context, conn model.StripeConnection, importID string) (*applying, error) {
	src, err := s.source(ctx, conn.AccountID, conn.DataSourceUUID)
	if err != nil {
		return nil, err
	}
	return &applying{Sync: s, conn: conn, src: src, importID: importID}, nil
}

// stripeReader is the connection's reader, nil when it has none.
func (a *applying) stripeReader(ctx context.Context) (Reader, error) {
	if a.readerDone || a.Readers == nil {
		return a.reader, nil
	}
	r, err := a.Readers(ctx, a.conn)
	if err != nil {
		return nil, err
	}
	a.reader, a.readerDone = r, true
	return r, nil
}

// droppedError: the records cannot be applied and never will be; the event is marked
// applied and logged, never retried.
type droppedError struct{ reason string }

func (e *droppedError) Error() string { return "stripesync: dropped: " + e.reason }

func dropped(format string, args ...any) error {
	return &droppedError{reason: fmt.Sprintf(format, args...)}
}

// plans creates or updates plans through the pipeline's plan step; a plan it refuses
// is logged (its lines then fail in the customer's step and are logged too).
func (a *applying) plans(ctx context.Context, plans []model.ImportPlan) error {
	if len(plans) == 0 {
		return nil
	}
	st, err := a.Pipeline.ApplyPlans(ctx, a.conn.AccountID, a.importID, a.src.ds, plans)
	if err != nil {
		return err
	}
	for _, e := range st.Errors {
		slog.WarnContext(ctx, "stripe plan not applied", "account_id", a.conn.AccountID,
			"data_source_uuid", a.conn.DataSourceUUID, "plan", e.ExternalID, "reason", e.Message)
	}
	return nil
}

// apply stores one Stripe customer's records (their plans applied before) with the
// pipeline's per-customer step, sets the invoice statuses, and asks for the customer's
// recomputation when anything changed. Records a json_import would refuse are dropped.
func (a *applying) apply(ctx context.Context, customerID string, recs stripesource.Records) error {
	if customerID == "" {
		return dropped("no Stripe customer")
	}
	pl, err := validated(recs.ImportPayload)
	if err != nil {
		return dropped("records refused: %v", err)
	}
	part := imports.Part{CustomerExternalID: customerID, Customer: &model.ImportCustomer{ExternalID: customerID},
		Invoices: pl.Invoices, LineItems: pl.LineItems, Transactions: pl.Transactions, Events: pl.Events}
	for i := range pl.Customers {
		if pl.Customers[i].ExternalID == customerID {
			part.Customer = &pl.Customers[i]
		}
	}
	m := imports.Message{AccountID: a.conn.AccountID, DataSourceUUID: a.conn.DataSourceUUID, CustomerExternalID: customerID,
		ImportID: a.importID, System: a.src.ds.System, Currency: a.src.currency}
	st, changed, err := a.Pipeline.Apply(ctx, m, part)
	if err != nil {
		return err
	}
	for _, k := range []model.KindStatus{st.Customers, st.Invoices, st.LineItems, st.Transactions, st.SubscriptionEvents} {
		for _, e := range k.Errors {
			slog.WarnContext(ctx, "stripe record not applied", "account_id", a.conn.AccountID, "data_source_uuid", a.conn.DataSourceUUID,
				"import_id", a.importID, "record", e.ExternalID, "reason", e.Message)
		}
	}
	nonce := a.importID
	for _, is := range recs.InvoiceStatuses {
		before, after, err := a.Pipeline.SetSourceInvoiceStatus(ctx, a.conn.AccountID,
			model.InvoiceUUID(a.conn.AccountID, a.conn.DataSourceUUID, is.InvoiceExternalID), is.Status)
		switch {
		case errors.Is(err, store.ErrNotFound), errors.Is(err, imports.ErrStatusTransition):
			slog.WarnContext(ctx, "stripe invoice status not set", "account_id", a.conn.AccountID,
				"invoice", is.InvoiceExternalID, "status", is.Status, "reason", err.Error())
		case err != nil:
			return err
		case before.Status != after.Status:
			changed = after.CustomerUUID
			nonce += ":" + after.Status
		}
	}
	for _, ca := range recs.Attributes {
		uuid, err := a.attributes(ctx, ca)
		if err != nil {
			return err
		}
		if uuid != "" {
			changed = uuid
			nonce += ":attributes"
		}
	}
	if changed == "" {
		return nil
	}
	return a.Jobs.Send(ctx, jobs.Recompute(a.conn.AccountID, changed, nonce))
}

// validated checks records as a json_import's intake does (and fills its defaults).
func validated(p model.ImportPayload) (model.ImportPayload, error) {
	p.ExternalID = "stripe"
	body, err := json.Marshal(p)
	if err != nil {
		return p, err
	}
	return model.ParseImport(body)
}

// ScheduleEvents are the subscription schedule events applied (each carries the whole
// schedule: they are applied alike).
var ScheduleEvents = []stripe.EventType{stripe.EventTypeSubscriptionScheduleCreated, stripe.EventTypeSubscriptionScheduleUpdated,
	stripe.EventTypeSubscriptionScheduleReleased, stripe.EventTypeSubscriptionScheduleCanceled,
	stripe.EventTypeSubscriptionScheduleCompleted, stripe.EventTypeSubscriptionScheduleAborted}

// handler applies one event type.
type handler func(a *applying, ctx context.Context, ev stripe.Event) error

// handlers are the events applied (docs/stripe.md, "Applying events"); any other type
// is ignored.
var handlers map[stripe.EventType]handler

func init() {
	handlers = map[stripe.EventType]handler{
		stripe.EventTypeCustomerCreated:             (*applying).customer,
		stripe.EventTypeCustomerUpdated:             (*applying).customer,
		stripe.EventTypeCustomerDeleted:             (*applying).customerDeleted,
		stripe.EventTypeCustomerSubscriptionCreated: (*applying).subscription,
		stripe.EventTypeCustomerSubscriptionUpdated: (*applying).subscription,
		stripe.EventTypeCustomerSubscriptionDeleted: (*applying).subscription,
		stripe.EventTypeInvoiceFinalized:            (*applying).invoice,
		stripe.EventTypeInvoicePaid:                 (*applying).invoice,
		stripe.EventTypeInvoicePaymentFailed:        (*applying).invoice,
		stripe.EventTypeInvoiceVoided:               (*applying).invoice,
		stripe.EventTypeInvoiceMarkedUncollectible:  (*applying).invoice,
		stripe.EventTypeInvoiceUpdated:              (*applying).invoice,
		stripe.EventTypeInvoicePaymentPaid:          (*applying).invoicePayment,
		stripe.EventTypeChargeRefunded:              (*applying).chargeRefunded,
		stripe.EventTypeRefundCreated:               (*applying).refund,
		stripe.EventTypeRefundUpdated:               (*applying).refund,
		stripe.EventTypeRefundFailed:                (*applying).refund,
		stripe.EventTypePriceCreated:                (*applying).price,
		stripe.EventTypePriceUpdated:                (*applying).price,
	}
	for _, t := range ScheduleEvents {
		handlers[t] = (*applying).schedule
	}
}
