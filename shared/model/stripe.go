package model

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// StripeConnection links a data source to a Stripe account: the webhook endpoint's
// signing secret and, for backfills, a restricted API key, both sealed (shared/secrets)
// and bound to the account and data source; never returned, never logged.
type StripeConnection struct {
	AccountID      string
	DataSourceUUID string
	// SealedWebhookSecret is the sealed whsec_… secret that signs the endpoint's deliveries.
	SealedWebhookSecret []byte
	// SealedAPIKey is the sealed rk_… key that reads the history; nil when none was given.
	SealedAPIKey []byte
	// APIKeyLast4 shows which key is stored without revealing it ("" when none).
	APIKeyLast4 string
	Settings    StripeSettings
	ConnectedAt time.Time
	UpdatedAt   time.Time
}

// StripeSettings are a Stripe data source's own settings. Churn recognition and refund
// handling left empty follow the account's subscription-analytics settings; the invoice
// handling is the source's alone (other sources count an invoice once it is issued).
type StripeSettings struct {
	// DeletedCustomers: "keep_anonymised" keeps a customer deleted in Stripe with its
	// history, its subscriptions cancelled and its personal data removed; "delete"
	// removes the customer and its data of this source.
	DeletedCustomers string
	// MeteredUsage: "exclude" leaves metered prices out of MRR (their lines count as
	// one-time charges, in cash flow only).
	MeteredUsage string
	// ChurnRecognition overrides the account's for this source's subscriptions: one of
	// ChurnRecognitions, or "" to follow the account. churn_at_click dates the churn when
	// the customer schedules the cancellation, which Stripe reports.
	ChurnRecognition string
	// RefundHandling overrides the account's: one of RefundHandlings, or "" to follow it.
	// refund_full_only treats a fully refunded invoice as never paid.
	RefundHandling string
	// InvoiceHandling decides when this source's invoices make and update subscribers.
	InvoiceHandling InvoiceHandling
}

// InvoiceHandling holds the rules for invoices collected automatically (charged to a
// saved payment method) and manually (sent to be paid), as ChartMogul splits them.
type InvoiceHandling struct {
	Automatic InvoiceRules
	Manual    InvoiceRules
}

// InvoiceRules decide when an invoice counts in the metrics.
type InvoiceRules struct {
	// CreateSubscriptionWhenInvoiceIs: an invoice that starts a subscription (a new or a
	// returning subscriber) counts once it is "open" (issued), "partially_paid" or "paid"
	// (in full).
	CreateSubscriptionWhenInvoiceIs string
	// UpdateSubscriptionWhenInvoiceIs: a later invoice of a subscription counts once it
	// is "open" (issued), "partially_paid" or "paid".
	UpdateSubscriptionWhenInvoiceIs string
	// PreventSubscriptionForInvoiceVoided: a voided invoice counts for nothing.
	PreventSubscriptionForInvoiceVoided bool
	// PreventSubscriptionForInvoiceWrittenOff: a written-off (uncollectible) invoice
	// counts for nothing.
	PreventSubscriptionForInvoiceWrittenOff bool
}

// Allowed values of the Stripe settings.
var (
	StripeDeletedCustomers = []string{"keep_anonymised", "delete"}
	StripeMeteredUsages    = []string{"exclude"}
	InvoicePaymentStates   = []string{"open", "partially_paid", "paid"}
)

// DefaultInvoiceRules are ChartMogul's defaults for a Stripe source: a subscriber is
// made by a fully paid invoice and updated by an issued one; voided and written-off
// invoices count for nothing.
func DefaultInvoiceRules() InvoiceRules {
	return InvoiceRules{CreateSubscriptionWhenInvoiceIs: "paid", UpdateSubscriptionWhenInvoiceIs: "open",
		PreventSubscriptionForInvoiceVoided: true, PreventSubscriptionForInvoiceWrittenOff: true}
}

// DefaultStripeSettings are ChartMogul's defaults for a Stripe source; churn recognition
// and refund handling follow the account's.
func DefaultStripeSettings() StripeSettings {
	return StripeSettings{DeletedCustomers: "keep_anonymised", MeteredUsage: "exclude",
		InvoiceHandling: InvoiceHandling{Automatic: DefaultInvoiceRules(), Manual: DefaultInvoiceRules()}}
}

// Validate names the first setting whose value is not allowed.
func (s StripeSettings) Validate() error {
	type rule struct {
		name, value string
		allowed     []string
		optional    bool
	}
	rules := []rule{
		{"deleted_customers", s.DeletedCustomers, StripeDeletedCustomers, false},
		{"metered_usage", s.MeteredUsage, StripeMeteredUsages, false},
		{"churn_recognition", s.ChurnRecognition, ChurnRecognitions, true},
		{"refund_handling", s.RefundHandling, RefundHandlings, true},
	}
	for _, m := range []struct {
		name  string
		rules InvoiceRules
	}{{"automatic", s.InvoiceHandling.Automatic}, {"manual", s.InvoiceHandling.Manual}} {
		prefix := "invoice_handling." + m.name + "."
		rules = append(rules,
			rule{prefix + "create_subscription_when_invoice_is", m.rules.CreateSubscriptionWhenInvoiceIs, InvoicePaymentStates, false},
			rule{prefix + "update_subscription_when_invoice_is", m.rules.UpdateSubscriptionWhenInvoiceIs, InvoicePaymentStates, false})
	}
	for _, f := range rules {
		if f.optional && f.value == "" {
			continue
		}
		if !slices.Contains(f.allowed, f.value) {
			return fmt.Errorf("%s %q must be one of %s", f.name, f.value, strings.Join(f.allowed, ", "))
		}
	}
	return nil
}
