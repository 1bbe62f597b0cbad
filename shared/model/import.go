package model

import (
	"time"

	"github.com/google/uuid"
)

// Import statuses, as json_imports shows them.
const (
	ImportQueued     = "queued"
	ImportProcessing = "processing"
	ImportCompleted  = "completed"
	// RecordsImported / RecordsFailed are the per-kind statuses of status_details.
	RecordsImported = "imported"
	RecordsFailed   = "failed"
)

// MaxImportBytes is the largest json_imports body accepted (ChartMogul's 5 MB).
const MaxImportBytes = 5 << 20

// Import is one json_imports batch.
type Import struct {
	AccountID      string
	ID             string // bare UUID
	DataSourceUUID string
	ExternalID     string
	// Customers is how many customer messages the batch was split into.
	Customers int
	// PayloadHash tells a retried intake of the same body from a second import that
	// reuses the external id.
	PayloadHash string
	// Queued is set once every customer message is on the queue.
	Queued    bool
	Plans     KindStatus
	CreatedAt time.Time
	UpdatedAt time.Time
}

// KindStatus is the status of one kind of record (plans, invoices, ...) in an import.
type KindStatus struct {
	Status string        `json:"status"`
	Errors []RecordError `json:"errors,omitempty"`
}

// RecordError names a record that failed when it was applied.
type RecordError struct {
	ExternalID string `json:"external_id,omitempty"`
	Message    string `json:"message"`
}

// ImportCustomerStatus is one customer's entry of status_details.
type ImportCustomerStatus struct {
	ExternalID         string
	Status             string
	Customers          KindStatus
	Invoices           KindStatus
	LineItems          KindStatus
	Transactions       KindStatus
	SubscriptionEvents KindStatus
	Errors             []RecordError // failures of the whole customer (dead-letter queue)
	UpdatedAt          time.Time
}

// importNamespace derives the deterministic ids of the import area.
var importNamespace = uuid.MustParse("6f1c1c52-3b7e-4d55-9a0e-5b1f0c7a9e21")

// DerivedUUID is a name-based (v5) UUID of parts. Objects keyed by an external id get
// such ids, so that writing the same external id again addresses the same item.
func DerivedUUID(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
		b = append(b, 0)
	}
	return uuid.NewSHA1(importNamespace, b).String()
}

// ImportID is the id of a json_imports batch of a data source.
func ImportID(accountID, dsUUID, externalID string) string {
	return DerivedUUID("import", accountID, dsUUID, externalID)
}

// ImportPayload is a validated json_imports body.
type ImportPayload struct {
	ExternalID   string              `json:"external_id"`
	Customers    []ImportCustomer    `json:"customers,omitempty"`
	Plans        []ImportPlan        `json:"plans,omitempty"`
	Invoices     []ImportInvoice     `json:"invoices,omitempty"`
	LineItems    []ImportLineItem    `json:"line_items,omitempty"`
	Transactions []ImportTransaction `json:"transactions,omitempty"`
	Events       []ImportEvent       `json:"subscription_events,omitempty"`
}

// ImportCustomer is a customer record; nil fields were not sent and leave an
// existing customer's value unchanged.
type ImportCustomer struct {
	ExternalID         string     `json:"external_id"`
	Name               *string    `json:"name,omitempty"`
	Email              *string    `json:"email,omitempty"`
	Company            *string    `json:"company,omitempty"`
	Country            *string    `json:"country,omitempty"`
	State              *string    `json:"state,omitempty"`
	City               *string    `json:"city,omitempty"`
	Zip                *string    `json:"zip,omitempty"`
	LeadCreatedAt      *time.Time `json:"lead_created_at,omitempty"`
	FreeTrialStartedAt *time.Time `json:"free_trial_started_at,omitempty"`
}

// ImportPlan is a plan record.
type ImportPlan struct {
	ExternalID    string `json:"external_id,omitempty"`
	Name          string `json:"name"`
	IntervalCount int    `json:"interval_count"`
	IntervalUnit  string `json:"interval_unit"`
}

// ImportInvoice is an invoice record (its line items and transactions come apart).
type ImportInvoice struct {
	ExternalID         string     `json:"external_id"`
	CustomerExternalID string     `json:"customer_external_id"`
	Date               time.Time  `json:"date"`
	DueDate            *time.Time `json:"due_date,omitempty"`
	Currency           string     `json:"currency"`
	CollectionMethod   string     `json:"collection_method,omitempty"`
}

// ImportLineItem is a line item record, linked to its invoice by external id.
type ImportLineItem struct {
	InvoiceExternalID string `json:"invoice_external_id"`
	// Position is its index among the payload's line items of its invoice; it identifies
	// a line item sent without an external id.
	Position int `json:"position"`
	LineItemFields
	PlanExternalID string `json:"plan_external_id,omitempty"`
}

// LineItemFields are the values of a line item, as validated from a request.
type LineItemFields struct {
	ExternalID                string     `json:"external_id,omitempty"`
	Type                      string     `json:"type"`
	SubscriptionExternalID    string     `json:"subscription_external_id,omitempty"`
	SubscriptionSetExternalID string     `json:"subscription_set_external_id,omitempty"`
	ServicePeriodStart        *time.Time `json:"service_period_start,omitempty"`
	ServicePeriodEnd          *time.Time `json:"service_period_end,omitempty"`
	AmountInCents             int64      `json:"amount_in_cents"`
	Quantity                  int64      `json:"quantity"`
	Prorated                  bool       `json:"prorated"`
	ProrationType             string     `json:"proration_type,omitempty"`
	CancelledAt               *time.Time `json:"cancelled_at,omitempty"`
	DiscountAmountInCents     int64      `json:"discount_amount_in_cents"`
	DiscountCode              string     `json:"discount_code"`
	DiscountDescription       *string    `json:"discount_description,omitempty"`
	TaxAmountInCents          int64      `json:"tax_amount_in_cents"`
	TransactionFeesInCents    int64      `json:"transaction_fees_in_cents"`
	TransactionFeesCurrency   *string    `json:"transaction_fees_currency,omitempty"`
	Description               string     `json:"description,omitempty"`
	AccountCode               string     `json:"account_code"`
	EventOrder                *int64     `json:"event_order,omitempty"`
	BalanceTransfer           *bool      `json:"balance_transfer,omitempty"`
}

// ImportTransaction is a transaction record, linked to its invoice by external id.
type ImportTransaction struct {
	InvoiceExternalID string `json:"invoice_external_id"`
	Position          int    `json:"position"`
	TransactionFields
}

// TransactionFields are the values of a transaction.
type TransactionFields struct {
	ExternalID              string    `json:"external_id,omitempty"`
	Type                    string    `json:"type"`
	Result                  string    `json:"result"`
	Date                    time.Time `json:"date"`
	AmountInCents           *int64    `json:"amount_in_cents,omitempty"`
	TransactionFeesInCents  *int64    `json:"transaction_fees_in_cents,omitempty"`
	TransactionFeesCurrency *string   `json:"transaction_fees_currency,omitempty"`
}

// ImportEvent is a subscription event record.
type ImportEvent struct {
	Position int `json:"position"`
	EventFields
}
