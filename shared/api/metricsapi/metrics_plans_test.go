package metricsapi_test

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// TestMetricsSeveralPlansThroughJSONImports imports customers paying on two plans at once
// or switching between them, runs the import and jobs workers, and asks the Metrics API
// for several plans: each customer counts once, a switch between the plans is an
// expansion, and the MRR is the sum over the plans.
//
//	c1 (US): gold 1000 from Jan; adds a silver subscription at 500 from Feb.
//	c2 (DE): gold 2000 in Jan; the same subscription renews on silver at 2500 from Feb.
//	c3 (US): bronze 800 from Jan; adds silver at 300 from Feb.
//
// plans=gold,silver by month: Jan 3000 (c1, c2: 2 customers, new 3000); Feb +500 c1,
// +500 c2's switch (expansion 1000), +300 c3 (new business inside the filter) → 4300, 3
// customers, ARPA 1433, ASP 300; Mar unchanged. Summing the single-plan series would
// count c1 twice (4 customers) and see c2 churn from gold and start on silver.
// geo=US&plans=gold,silver: c1 and c3: 1000 (1), 1800 (2), 1800 (2).
func TestMetricsSeveralPlansThroughJSONImports(t *testing.T) {
	env, acc, ds := clockedMetricsEnv(t, time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC))
	d := env.API
	type line struct {
		customer, sub, plan string
		month               int // 1 = January 2024
		amount              int64
	}
	lines := []line{
		{"c1", "c1-g", "gold", 1, 1000}, {"c1", "c1-g", "gold", 2, 1000}, {"c1", "c1-g", "gold", 3, 1000},
		{"c1", "c1-s", "silver", 2, 500}, {"c1", "c1-s", "silver", 3, 500},
		{"c2", "c2-a", "gold", 1, 2000}, {"c2", "c2-a", "silver", 2, 2500}, {"c2", "c2-a", "silver", 3, 2500},
		{"c3", "c3-b", "bronze", 1, 800}, {"c3", "c3-b", "bronze", 2, 800}, {"c3", "c3-b", "bronze", 3, 800},
		{"c3", "c3-s", "silver", 2, 300}, {"c3", "c3-s", "silver", 3, 300},
	}
	var invoices, items []any
	for i, l := range lines {
		start := time.Date(2024, time.Month(l.month), 1, 0, 0, 0, 0, time.UTC)
		ext := fmt.Sprintf("inv-%d", i)
		invoices = append(invoices, map[string]any{"external_id": ext, "customer_external_id": l.customer,
			"date": start.Format(time.RFC3339), "currency": "USD"})
		items = append(items, map[string]any{"invoice_external_id": ext, "type": "subscription", "plan_external_id": l.plan,
			"subscription_external_id": l.sub, "service_period_start": start.Format(time.RFC3339),
			"service_period_end": start.AddDate(0, 1, 0).Format(time.RFC3339), "amount_in_cents": l.amount, "quantity": 1})
	}
	plan := func(ext, name string) map[string]any {
		return map[string]any{"external_id": ext, "name": name, "interval_count": 1, "interval_unit": "month"}
	}
	payload := map[string]any{"external_id": "several-plans",
		"customers": []any{map[string]any{"external_id": "c1", "name": "One", "country": "US"},
			map[string]any{"external_id": "c2", "name": "Two", "country": "DE"},
			map[string]any{"external_id": "c3", "name": "Three", "country": "US"}},
		"plans":    []any{plan("gold", "Gold"), plan("silver", "Silver"), plan("bronze", "Bronze")},
		"invoices": invoices, "line_items": items}
	status, body := apitest.Do(t, d, "CreateJsonImport", apigwtest.Call{
		PathParams: map[string]string{"data_source_uuid": ds}, Body: payload, AccountID: acc})
	if status != http.StatusOK {
		t.Fatalf("import: %d %v", status, body)
	}
	env.DrainWorkers(t)
	testenv.CheckSeries(t, env.Workers, acc)

	tests := []struct {
		geo, plans string
		want       map[string][]any
	}{
		{"", "gold,silver", map[string][]any{"mrr": {3000.0, 4300.0, 4300.0}, "customers": {2.0, 3.0, 3.0},
			"arpa": {1500.0, 1433.0, 1433.0}, "asp": {1500.0, 300.0, 0.0}, "customer-churn-rate": {0.0, 0.0, 0.0}}},
		{"", "Gold,Silver,bronze", map[string][]any{"mrr": {3800.0, 5100.0, 5100.0}, "customers": {3.0, 3.0, 3.0}}},
		{"US", "gold,silver", map[string][]any{"mrr": {1000.0, 1800.0, 1800.0}, "customers": {1.0, 2.0, 2.0},
			"asp": {1000.0, 300.0, 0.0}}},
		{"US,DE", "gold,silver", map[string][]any{"mrr": {3000.0, 4300.0, 4300.0}, "customers": {2.0, 3.0, 3.0}}},
		{"", "gold", map[string][]any{"mrr": {3000.0, 1000.0, 1000.0}, "customers": {2.0, 1.0, 1.0},
			"customer-churn-rate": {0.0, 50.0, 0.0}}},
	}
	for _, tt := range tests {
		q := apitest.Query("start-date", "2024-01-01", "end-date", "2024-03-31", "interval", "month", "plans", tt.plans)
		if tt.geo != "" {
			q.Set("geo", tt.geo)
		}
		status, all := apitest.Do(t, d, "MetricsAll", apigwtest.Call{
			Query: q, AccountID: acc})
		if status != http.StatusOK {
			t.Fatalf("%v: %d %v", q, status, all)
		}
		for key, want := range tt.want {
			if got := apitest.Field(all, key); !reflect.DeepEqual(got, want) {
				t.Errorf("geo=%s plans=%s: %s = %v, want %v", tt.geo, tt.plans, key, got, want)
			}
		}
		_, mrr := apitest.Do(t, d, "MetricsMrr", apigwtest.Call{
			Query: q, AccountID: acc})
		if tt.plans == "gold,silver" && tt.geo == "" {
			if got := apitest.Field(mrr, "mrr-expansion"); !reflect.DeepEqual(got, []any{0.0, 1000.0, 0.0}) {
				t.Errorf("mrr-expansion = %v, want the add-on and the switch inside the filter", got)
			}
			if got := apitest.Field(mrr, "mrr-churn"); !reflect.DeepEqual(got, []any{0.0, 0.0, 0.0}) {
				t.Errorf("mrr-churn = %v: a switch between the filter's plans is no churn", got)
			}
		}
	}
}

// clockedMetricsEnv is a fresh environment whose clock stands at now, with one account
// and one data source: the environment, the account id and the data source uuid.
func clockedMetricsEnv(t *testing.T, now time.Time) (*testenv.Env, string, string) {
	t.Helper()
	env := testenv.New(t)
	env.Deps = env.With(nil, func() time.Time { return now })
	env.API, env.Workers = env.Deps.API(), env.Deps.Workers()
	acc := env.NewAccount(t, "Metrics plans")
	ds := env.NewDataSource(t, acc.ID, "Billing")
	return env, acc.ID, ds.UUID
}
