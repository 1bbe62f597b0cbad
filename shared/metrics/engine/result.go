package engine

import "time"

// Movement (activity) types.
const (
	NewBusiness  = "new_biz"
	Expansion    = "expansion"
	Contraction  = "contraction"
	Churn        = "churn"
	Reactivation = "reactivation"
)

// Customer statuses. StatusLead means "never paid": the caller keeps the stored lead status
// (New Lead, Working Lead, ...).
const (
	StatusLead      = "Lead"
	StatusActive    = "Active"
	StatusPastDue   = "Past Due"
	StatusCancelled = "Cancelled"
)

// Subscription statuses of the Metrics-API view.
const (
	SubscriptionActive   = "active"
	SubscriptionInactive = "inactive"
)

// Point is a value that holds from At until the next point.
type Point struct {
	At  time.Time
	MRR int64
}

// Subscription is one subscription as the Metrics API shows it, as of Input.Now.
type Subscription struct {
	UUID              string
	ExternalID        string
	SetExternalID     string
	DataSourceUUID    string
	PlanUUID          string
	Quantity          int64
	MRR               int64
	ARR               int64
	Status            string // active | inactive
	PastDue           bool
	BillingCycle      string // day | month | year
	BillingCycleCount int
	StartDate         time.Time
	EndDate           time.Time
	CancellationDates []time.Time
	ConnectedUUIDs    []string // subscriptions connected into this one (no longer listed)
	LinkedToUUID      string   // set successor this one was linked into, if any
	MRRTimeline       []Point
}

// Movement is one MRR movement (activity). Amount is the signed activity-mrr-movement;
// CustomerMRR is activity-mrr (the customer's total right after it). Both are truncated from
// exact values, so Amount can differ by a cent from CustomerMRR − CustomerMRRBefore.
type Movement struct {
	At                        time.Time
	Type                      string
	Amount                    int64
	CustomerMRR               int64
	CustomerMRRBefore         int64
	SubscriptionUUID          string
	SubscriptionExternalID    string
	SubscriptionSetExternalID string
	DataSourceUUID            string
	PlanUUID                  string
	PreviousPlanUUID          string
	SubscriptionMRRBefore     int64
	SubscriptionMRRAfter      int64
	Description               string
	PayingBefore, PayingAfter bool // customer counted as a customer before / after
	FirstPayment              bool // the customer's first ever payment (ASP denominator)
	Scheduled                 bool // dated after Input.Now: committed, not yet real
}

// ExchangeRateImpact is a change of the customer's MRR that is not a movement: a
// foreign-currency subscription's MRR converted at the rate of a new service period instead
// of the previous one's (docs/metrics-engine.md, choice 18). Amount is CustomerMRR −
// CustomerMRRBefore, so movements and impacts together follow the customer's MRR to the
// cent. At an instant the impacts come before the movements, which start from the repriced
// MRR.
type ExchangeRateImpact struct {
	At                    time.Time
	Amount                int64
	CustomerMRRBefore     int64
	CustomerMRR           int64
	SubscriptionUUID      string
	PlanUUID              string // the subscription's plan before the instant
	SubscriptionMRRBefore int64
	SubscriptionMRRAfter  int64 // the same subscription at the new rate, before any change of price
	Scheduled             bool  // dated after Input.Now (a committed change)
}

// InvalidInvoice is an invoice left out of the computation, with the reason.
type InvalidInvoice struct {
	UUID       string
	ExternalID string
	Reason     string
}

// Result is the customer's computed state.
type Result struct {
	Status        string
	CustomerSince time.Time // zero for leads
	MRR           int64
	ARR           int64
	Subscriptions []Subscription
	MRRTimeline   []Point
	Movements     []Movement
	// ExchangeRateImpacts are the changes of MRR that movements leave out, in time order.
	ExchangeRateImpacts []ExchangeRateImpact
	InvalidInvoices     []InvalidInvoice
	AutoChurned         bool      // tag the customer auto-churned-delinquent-subscription
	NextChangeAt        time.Time // earliest instant after Now at which the result changes by itself; zero if none
	BillingCurrencies   []string  // currencies of the enabled invoices and events, sorted
}
