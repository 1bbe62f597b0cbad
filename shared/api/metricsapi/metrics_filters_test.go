package metricsapi_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// metricOperations are every Metrics API operation, by registry name.
var metricOperations = []string{"MetricsAll", "MetricsMrr", "MetricsArr", "MetricsArpa", "MetricsAsp",
	"MetricsCustomerCount", "MetricsCustomerChurnRate", "MetricsMrrChurnRate", "MetricsLtv"}

// importCustomers imports customers (external id → monthly amounts from January 2024
// on gold) into a new data source of acc and runs the workers, then tags them.
func importCustomers(t *testing.T, env *testenv.Env, acc string, amounts map[string][]int64, tags map[string][]string) {
	t.Helper()
	ds := env.NewDataSource(t, acc, "Billing")
	var custs, invoices, items []any
	for ext, monthly := range amounts {
		custs = append(custs, map[string]any{"external_id": ext, "name": ext, "country": "US"})
		for m, amount := range monthly {
			if amount == 0 {
				continue
			}
			start := time.Date(2024, time.Month(1+m), 1, 0, 0, 0, 0, time.UTC)
			inv := fmt.Sprintf("%s-%d", ext, m)
			invoices = append(invoices, map[string]any{"external_id": inv, "customer_external_id": ext,
				"date": start.Format(time.RFC3339), "currency": "USD"})
			items = append(items, map[string]any{"invoice_external_id": inv, "type": "subscription", "plan_external_id": "gold",
				"subscription_external_id": ext + "-s", "service_period_start": start.Format(time.RFC3339),
				"service_period_end": start.AddDate(0, 1, 0).Format(time.RFC3339), "amount_in_cents": amount, "quantity": 1})
		}
	}
	payload := map[string]any{"external_id": "filters", "customers": custs, "invoices": invoices, "line_items": items,
		"plans": []any{map[string]any{"external_id": "gold", "name": "Gold", "interval_count": 1, "interval_unit": "month"}}}
	if status, body := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{PathParams: map[string]string{"data_source_uuid": ds.UUID}, Body: payload,
		AccountID: acc}); status != http.StatusOK {
		t.Fatalf("import: %d %v", status, body)
	}
	env.DrainWorkers(t)
	for ext, tt := range tags {
		uuid, err := env.Deps.Store.CustomerUUIDByExternalID(context.Background(), acc, ds.UUID, ext)
		if err != nil {
			t.Fatal(err)
		}
		if status, body := apitest.Do(t, env.API, "AddCustomerTags", apigwtest.Call{PathParams: map[string]string{"customer_uuid": uuid},
			Body: map[string]any{"tags": tt}, AccountID: acc}); status != http.StatusOK {
			t.Fatalf("tags: %d %v", status, body)
		}
	}
}

// TestMetricsFiltersOnEveryEndpoint: a CFL filter on customers' tags answers, on every
// Metrics API endpoint and interval, exactly what a second account holding only the
// tagged customers answers without filters; and a filter of countries equals geo.
//
//	vip1: 100.00 Jan–Jun, 150.00 since Jul (vip)   vip2: 50.00 Feb–Apr, churned (vip)
//	other: 80.00 since Jan
func TestMetricsFiltersOnEveryEndpoint(t *testing.T) {
	env, acc, _ := clockedMetricsEnv(t, time.Date(2024, 9, 15, 12, 0, 0, 0, time.UTC))
	only := env.NewAccount(t, "Only the vips").ID
	vips := map[string][]int64{"vip1": {10000, 10000, 10000, 10000, 10000, 10000, 15000, 15000, 15000},
		"vip2": {0, 5000, 5000, 5000}}
	all := map[string][]int64{"other": {8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000}}
	for k, v := range vips {
		all[k] = v
	}
	importCustomers(t, env, acc, all, map[string][]string{"vip1": {"vip"}, "vip2": {"VIP", "beta"}})
	importCustomers(t, env, only, vips, nil)
	get := func(op, account string, kv ...string) map[string]any {
		q := apitest.Query(append([]string{"start-date", "2024-01-01", "end-date", "2024-09-15"}, kv...)...)
		status, body := apitest.Do(t, env.API, op, apigwtest.Call{Query: q, AccountID: account})
		if status != http.StatusOK {
			t.Fatalf("%s %v: %d %v", op, q, status, body)
		}
		return body
	}
	for _, op := range metricOperations {
		for _, iv := range []string{"day", "week", "month", "quarter", "year"} {
			got := get(op, acc, "interval", iv, "filters", "tags~ANY~'vip'")
			if want := get(op, only, "interval", iv); !reflect.DeepEqual(got, want) {
				t.Errorf("%s by %s, tags~ANY~'vip':\n got %v\nwant %v", op, iv, got, want)
			}
			if got, want := get(op, acc, "interval", iv, "filters", "region~ANY~'US'"), get(op, acc, "interval", iv, "geo", "US"); !reflect.DeepEqual(got, want) {
				t.Errorf("%s by %s: region~ANY~'US' differs from geo=US", op, iv)
			}
		}
	}
	if got := apitest.Field(get("MetricsMrr", acc, "interval", "month", "filters", "tags~NONE~'vip'"), "mrr"); !reflect.DeepEqual(got,
		[]any{8000.0, 8000.0, 8000.0, 8000.0, 8000.0, 8000.0, 8000.0, 8000.0, 8000.0}) {
		t.Errorf("tags~NONE~'vip': mrr %v, want other's alone", got)
	}
}

// TestMetricsFiltersErrors: a malformed expression, an unknown filter, an operator the
// filter does not take and a bad value are 400s with param filters and a message that
// names the offending part.
func TestMetricsFiltersErrors(t *testing.T) {
	e := apitest.NewMetricsEnv(t)
	tests := []struct{ filters, message string }{
		{"country~EQUALS~US", `Invalid value for parameter "filters": Unknown operator (one of ALL, ANY, NONE, EQ, NOT_EQ, ` +
			`GT, GTE, LT, LTE, BETWEEN, CONTAINS, NOT_CONTAINS, IS, IS_NOT) in "EQUALS"`},
		{"currency~ANY~'USD", `Invalid value for parameter "filters": A quoted value is not closed in "'USD"`},
		{"currency~ANY~'USD'~OR~mrr~GT~1", `Invalid value for parameter "filters": Conditions can only be joined with AND, ` +
			`not OR in "currency~ANY~'USD'~OR~mrr~GT~1"`},
		{"region~GT~'US'", `Invalid value for parameter "filters": The filter region does not take the operator GT ` +
			`(it takes ANY, NONE, IS, IS_NOT) in "region~GT~'US'"`},
		{"custom.tier~EQ~'x'", `Invalid value for parameter "filters": The account's customers have no custom attribute ` +
			`"tier" in "custom.tier~EQ~'x'"`},
		{"mrr~BETWEEN~10", `Invalid value for parameter "filters": The operator BETWEEN takes two values (low,high), not 1 ` +
			`in "mrr~BETWEEN~10"`},
		{"customer_since~GT~yesterday", `Invalid value for parameter "filters": "yesterday" is not a date (YYYY-MM-DD) ` +
			`in "customer_since~GT~yesterday"`},
	}
	for _, tt := range tests {
		for _, op := range []string{"MetricsAll", "MetricsLtv"} {
			status, body := e.Get(op, e.Acc, apitest.Query("start-date", "2024-01-01", "end-date", "2024-02-01",
				"filters", tt.filters))
			want := map[string]any{"code": 400.0, "message": tt.message, "param": "filters"}
			if status != http.StatusBadRequest || !reflect.DeepEqual(body, want) {
				t.Errorf("%s %s: %d %v, want %v", op, tt.filters, status, body, want)
			}
		}
	}
}
