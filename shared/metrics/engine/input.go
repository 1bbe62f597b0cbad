package engine

import "time"

// Values of the account settings (§4.1).
const (
	ChurnAtCancellation = "churn_at_time_of_cancelation"
	ChurnAtPeriodEnd    = "churn_at_period_end"
	ChurnAtClick        = "churn_at_click"

	RefundIgnore   = "refund_ignore"
	RefundFullOnly = "refund_full_only"
)

// Line item types, proration types, transaction kinds and invoice statuses.
const (
	ItemSubscription = "subscription"
	ItemOneTime      = "one_time"
	ItemTrial        = "trial"

	ProrationDifferential    = "differential"
	ProrationFull            = "full"
	ProrationDifferentialMRR = "differential_mrr"

	TransactionPayment = "payment"
	TransactionRefund  = "refund"
	ResultSuccessful   = "successful"
	ResultFailed       = "failed"

	InvoiceVoided     = "voided"
	InvoiceWrittenOff = "written_off"

	CollectionAutomatic = "automatic"
	CollectionManual    = "manual"
)

// Payment states of an invoice, in the order an invoice reaches them (SourceRules).
const (
	PaymentOpen          = "open"           // issued
	PaymentPartiallyPaid = "partially_paid" // successful payments above zero
	PaymentPaid          = "paid"           // successful payments cover the invoice's total
)

// Subscription event types (§2).
const (
	EventStart                 = "subscription_start"
	EventStartScheduled        = "subscription_start_scheduled"
	EventStartRetracted        = "scheduled_subscription_start_retracted"
	EventUpdated               = "subscription_updated"
	EventUpdateScheduled       = "subscription_update_scheduled"
	EventUpdateRetracted       = "scheduled_subscription_update_retracted"
	EventCancelled             = "subscription_cancelled"
	EventCancellationScheduled = "subscription_cancellation_scheduled"
	EventCancellationRetracted = "scheduled_subscription_cancellation_retracted"
	EventRetracted             = "subscription_event_retracted"
)

// DefaultAutoChurnDays is used when auto-churn is on and the source gives no interval.
const DefaultAutoChurnDays = 30

// Settings are the account (and source) settings that change the computation.
type Settings struct {
	Currency                          string // account currency, e.g. "USD"
	ChurnRecognition                  string
	ChurnWhenZeroMRR                  bool
	AutoChurnSubscription             bool
	AutoChurnAfterDays                int // the source's interval (1–90); 0 means DefaultAutoChurnDays
	RefundHandling                    string
	ProximateMovementReclassification string
}

// Plan is a billing plan; IntervalUnit is day, month or year.
type Plan struct {
	UUID          string
	ExternalID    string
	Name          string
	IntervalCount int
	IntervalUnit  string
}

// Invoice is one imported invoice with its line items and transactions. Zero times mean "not
// given"; Status is empty unless the invoice was marked voided or written off.
type Invoice struct {
	UUID           string
	ExternalID     string
	DataSourceUUID string
	Date           time.Time
	DueDate        time.Time
	Currency       string
	Status         string
	// CollectionMethod is "automatic" (charged to a saved payment method) or "manual"
	// (sent to be paid); it picks the invoice rules of a source with SourceRules.
	CollectionMethod string
	Disabled         bool // §1.7: counts for nothing, with its line items and transactions
	LineItems        []LineItem
	Transactions     []Transaction
}

// LineItem is one invoice line. SubscriptionUUID is the id the caller already gave the
// subscription (kept stable across recomputations); when empty a deterministic one is derived.
type LineItem struct {
	UUID                      string
	ExternalID                string
	Type                      string
	SubscriptionUUID          string
	SubscriptionExternalID    string
	SubscriptionSetExternalID string
	PlanUUID                  string
	ServicePeriodStart        time.Time
	ServicePeriodEnd          time.Time
	AmountInCents             int64
	Quantity                  int64
	Prorated                  bool
	ProrationType             string
	DiscountAmountInCents     int64 // informational: already deducted from AmountInCents
	TaxAmountInCents          int64
	TransactionFeesInCents    int64 // informational: fees are not deducted from MRR
	EventOrder                int
	CancelledAt               time.Time
	Disabled                  bool
}

// Transaction is a payment or refund; a nil AmountInCents means the whole invoice amount.
type Transaction struct {
	UUID          string
	Type          string
	Result        string
	Date          time.Time
	AmountInCents *int64
	Disabled      bool
}

// SubscriptionEvent is one of the ten subscription event types. ID is what retractions point
// at (RetractedEventID). Retracted marks an event the caller already knows to be withdrawn.
type SubscriptionEvent struct {
	ID                        string
	DataSourceUUID            string
	SubscriptionUUID          string
	SubscriptionExternalID    string
	SubscriptionSetExternalID string
	PlanUUID                  string
	EventType                 string
	EventDate                 time.Time
	EffectiveDate             time.Time
	Currency                  string
	AmountInCents             int64
	TaxAmountInCents          int64
	Quantity                  int64
	RetractedEventID          string
	EventOrder                int
	Retracted                 bool
	Disabled                  bool
}

// CancellationHistory is a subscription's cancellation_dates as last set through the
// subscriptions API; it replaces every other source of cancellations for that subscription.
type CancellationHistory struct {
	DataSourceUUID         string
	SubscriptionExternalID string
	Dates                  []time.Time
}

// Connection asks for two subscriptions (by uuid) to be treated as one.
type Connection struct {
	SubscriptionUUIDs [2]string
}

// ExchangeRates gives the rate converting one unit of currency into the account currency on a
// UTC calendar day ("2006-01-02"); ok is false when the table has no rate.
type ExchangeRates interface {
	Rate(day, currency string) (rate float64, ok bool)
}

// RateTable is a map-backed ExchangeRates keyed by day + "/" + currency.
type RateTable map[string]float64

// Rate implements ExchangeRates.
func (t RateTable) Rate(day, currency string) (float64, bool) {
	r, ok := t[day+"/"+currency]
	return r, ok
}

// SourceRules are a data source's own rules (a Stripe source's settings, §1.8). A source
// without them follows Settings and counts every invoice once issued.
type SourceRules struct {
	// ChurnRecognition and RefundHandling override Settings' for the source's
	// subscriptions and invoices; "" follows Settings.
	ChurnRecognition string
	RefundHandling   string
	// Automatic and Manual are the invoice rules of invoices collected automatically and
	// manually (Invoice.CollectionMethod; anything but "manual" is automatic).
	Automatic, Manual InvoiceRules
}

// InvoiceRules decide when an invoice counts (§1.8).
type InvoiceRules struct {
	// CreateWhen: the payment state (PaymentOpen, PaymentPartiallyPaid, PaymentPaid) an
	// invoice that starts a subscription must reach to count; UpdateWhen: the one a
	// later invoice of a live subscription must reach. "" counts once issued.
	CreateWhen, UpdateWhen string
	// PreventVoided, PreventWrittenOff: a voided (written-off) invoice counts for
	// nothing; when false it counts as an issued one would.
	PreventVoided, PreventWrittenOff bool
}

// Input is everything known about one customer at instant Now.
type Input struct {
	Now      time.Time
	Settings Settings
	// Sources are the rules of the data sources that have their own, by DataSourceUUID.
	Sources             map[string]SourceRules
	Plans               []Plan
	Invoices            []Invoice
	Events              []SubscriptionEvent
	CancellationHistory []CancellationHistory
	Connections         []Connection
	Rates               ExchangeRates
}
