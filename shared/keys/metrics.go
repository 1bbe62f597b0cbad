package keys

import "time"

// Items of the per-customer metrics. See docs/metrics-engine.md, "Storage and
// recomputation". Everything of one customer lives in its partition, so deleting the
// customer removes it.

// Entity types of the metrics area.
const (
	TypeMetricsState        = "metrics_state"
	TypeMetricsSubscription = "metrics_subscription"
	TypeInvalidInvoice      = "invalid_invoice"
	TypeMetricsWake         = "metrics_wake"
	TypeConnection          = "subscription_connection"
	TypeFXRate              = "fx_rate"
	TypeMergeRequest        = "merge_request"
)

// MetricsStatePrefix selects the chunks of a customer's last applied metrics result.
const MetricsStatePrefix = "METRICS#STATE#"

// MetricsState is chunk n of the customer's last applied result (chunk 0 carries the hash).
func MetricsState(accountID, customerUUID string, n int) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: MetricsStatePrefix + pad3(n)}
}

// MetricsSubscriptionPrefix selects a customer's Metrics-API subscription rows.
const MetricsSubscriptionPrefix = "MSUB#"

// MetricsSubscription is one row of GET /v1/customers/{uuid}/subscriptions; order is the
// listing order (start date, then uuid).
func MetricsSubscription(accountID, customerUUID, order string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: MetricsSubscriptionPrefix + order}
}

// InvalidInvoicePrefix selects the invoices of a customer the engine left out.
const InvalidInvoicePrefix = "MINVALID#"

// InvalidInvoice marks one invoice left out of the computation, with its reason.
func InvalidInvoice(accountID, customerUUID, invoiceUUID string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: InvalidInvoicePrefix + invoiceUUID}
}

// InvalidInvoicesByAccount is the GSI1 partition of the account's invalid invoices
// (GSI1SK: the invoice uuid), for listings with validation_type=invalid.
func InvalidInvoicesByAccount(accountID string) string { return Partition(accountID, "INVALIDINV") }

// MetricsWake is the customer's pending scheduled recomputation (at most one).
func MetricsWake(accountID, customerUUID string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: "METRICS#WAKE"}
}

// MetricsWakeBucket is the GSI2 partition of the wake items due within one UTC hour; a
// periodic sweeper reads the current and recent buckets (no scans). It is global by
// necessity (the sweeper serves every account); the items it points at are account-owned.
func MetricsWakeBucket(due time.Time) string {
	return "METRICSWAKE" + sep + due.UTC().Format("2006-01-02T15")
}

// MetricsWakeOrder is the GSI2 sort key of a wake item: due time, then the customer.
func MetricsWakeOrder(due time.Time, accountID, customerUUID string) string {
	return due.UTC().Format(time.RFC3339) + sep + accountID + sep + customerUUID
}

// ConnectionPrefix selects a customer's connected-subscription pairs.
const ConnectionPrefix = "MCONN#"

// Connection is one pair of connected subscriptions (subscription uuids, sorted).
func Connection(accountID, customerUUID, subA, subB string) Key {
	if subB < subA {
		subA, subB = subB, subA
	}
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: ConnectionPrefix + subA + sep + subB}
}

// MergeRequestPrefix selects the merges pending into a customer.
const MergeRequestPrefix = "MERGE#"

// MergeRequest is a pending merge of customer from into customer into; it lives in the
// into customer's partition until the jobs worker has carried it out.
func MergeRequest(accountID, intoUUID, fromUUID string) Key {
	return Key{PK: CustomerPartition(accountID, intoUUID), SK: MergeRequestPrefix + fromUUID}
}

// FXRates is the partition of the account's exchange rates for one currency; the sort key
// is the UTC day ("2006-01-02"), so a range of days is one query.
func FXRates(accountID, currency string) string { return Partition(accountID, "FX", currency) }

// FXRate is the rate of one currency on one day.
func FXRate(accountID, currency, day string) Key {
	return Key{PK: FXRates(accountID, currency), SK: day}
}

func pad3(n int) string {
	b := []byte{'0', '0', '0'}
	for i := 2; i >= 0 && n > 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}
