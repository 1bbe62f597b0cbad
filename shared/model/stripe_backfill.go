package model

import (
	"time"

	"github.com/google/uuid"
)

// Statuses of a Stripe backfill.
const (
	BackfillQueued  = "queued"
	BackfillRunning = "running"
	BackfillDone    = "done"
	BackfillFailed  = "failed"
)

// StripeBackfill is the progress of reading a data source's Stripe history into it: one
// per data source, the latest (a new one replaces a finished one). Its job moves it
// through queued, running, then done or failed, one step at a time, saving its position
// (the last Stripe customer read) after each page of customers.
type StripeBackfill struct {
	AccountID      string
	DataSourceUUID string
	ID             string
	Status         string
	Counts         StripeBackfillCounts
	// Requests is how many requests were sent to Stripe's API so far (retries included).
	Requests int64
	// Cursor is the id of the last Stripe customer read ("" before the first page):
	// the customers listing resumes after it.
	Cursor string
	// Pages is how many pages of customers are done: the position's version, on which
	// every save is conditional, so a step repeated after a later one changes nothing.
	Pages int
	// LastError says, for the client, why the backfill failed or why its last step was
	// retried ("" when none).
	LastError   string
	RequestedAt time.Time
	StartedAt   time.Time // zero until the first step
	FinishedAt  time.Time // zero until done or failed
	UpdatedAt   time.Time
}

// StripeBackfillCounts are the Stripe objects a backfill has read and handed on, per kind.
type StripeBackfillCounts struct {
	Prices          int `json:"prices"`
	Customers       int `json:"customers"`
	Subscriptions   int `json:"subscriptions"`
	Invoices        int `json:"invoices"`
	LineItems       int `json:"line_items"`
	InvoicePayments int `json:"invoice_payments"`
	Refunds         int `json:"refunds"`
}

// Add adds other's counts to c.
func (c *StripeBackfillCounts) Add(other StripeBackfillCounts) {
	c.Prices += other.Prices
	c.Customers += other.Customers
	c.Subscriptions += other.Subscriptions
	c.Invoices += other.Invoices
	c.LineItems += other.LineItems
	c.InvoicePayments += other.InvoicePayments
	c.Refunds += other.Refunds
}

// Finished reports whether the backfill ended (done or failed): a new one may start.
func (b StripeBackfill) Finished() bool {
	return b.Status == BackfillDone || b.Status == BackfillFailed
}

// NewStripeBackfillID is a new backfill's id (time-ordered).
func NewStripeBackfillID() string {
	id, err := uuid.NewV7()
	if err != nil {
		id = uuid.New()
	}
	return id.String()
}
