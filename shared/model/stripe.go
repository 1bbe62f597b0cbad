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

// StripeSettings are what a Stripe data source decides beyond the account's
// subscription-analytics settings (churn recognition, refund handling and the
// auto-churn, which the engine applies to every source).
type StripeSettings struct {
	// DeletedCustomers: "keep_anonymised" keeps a customer deleted in Stripe with its
	// history, its subscriptions cancelled and its personal data removed; "delete"
	// removes the customer and its data of this source.
	DeletedCustomers string
	// MeteredUsage: "exclude" leaves metered prices out of MRR (their lines count as
	// one-time charges, in cash flow only).
	MeteredUsage string
}

// Allowed values of the Stripe settings.
var (
	StripeDeletedCustomers = []string{"keep_anonymised", "delete"}
	StripeMeteredUsages    = []string{"exclude"}
)

// DefaultStripeSettings are ChartMogul's defaults for a Stripe source.
func DefaultStripeSettings() StripeSettings {
	return StripeSettings{DeletedCustomers: "keep_anonymised", MeteredUsage: "exclude"}
}

// Validate names the first setting whose value is not allowed.
func (s StripeSettings) Validate() error {
	for _, f := range []struct {
		name, value string
		allowed     []string
	}{{"deleted_customers", s.DeletedCustomers, StripeDeletedCustomers}, {"metered_usage", s.MeteredUsage, StripeMeteredUsages}} {
		if !slices.Contains(f.allowed, f.value) {
			return fmt.Errorf("%s %q must be one of %s", f.name, f.value, strings.Join(f.allowed, ", "))
		}
	}
	return nil
}
