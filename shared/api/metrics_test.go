package api_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
)

type metricsEnv struct {
	t            testing.TB
	d            *api.Deps
	acc, other   string
	gold, silver model.Plan
}

func metricDate(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// newMetricsEnv stores the four-customer portfolio of the hand computation (customers
// A, C, D in the US and B in Germany; A, B, D on Gold, C on Silver) through
// accountseries.Series.Apply, as the jobs worker would after recomputing each customer.
func newMetricsEnv(t *testing.T) *metricsEnv { return seededMetricsEnv(t, nil) }

// seededMetricsEnv is newMetricsEnv, its store's DynamoDB traffic counted by meter
// (when not nil).
func seededMetricsEnv(t testing.TB, meter *ddbmeter.Meter) *metricsEnv {
	env := testenv.New(t)
	d := env.API
	if meter != nil {
		d = env.With(meter.Client(env.AWS), nil).API()
	}
	e := &metricsEnv{t: t, d: d, acc: env.NewAccount(t, "Metrics").ID, other: env.NewAccount(t, "Other").ID}
	ctx := context.Background()
	ds := model.NewDataSource(e.acc, "Billing", time.Now())
	if err := e.d.Store.CreateDataSource(ctx, ds); err != nil {
		t.Fatal(err)
	}
	plan := func(name, ext string) model.Plan {
		p := model.Plan{AccountID: e.acc, UUID: model.NewPlanUUID(), DataSourceUUID: ds.UUID, ExternalID: ext, Name: name,
			IntervalCount: 1, IntervalUnit: "month", CreatedAt: time.Now()}
		if err := e.d.Store.CreatePlan(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	e.gold, e.silver = plan("Gold", "gold-ext"), plan("Silver", "silver-ext")
	mv := func(when, typ string, before, after int64, p model.Plan) engine.Movement {
		m := engine.Movement{At: metricDate(when).Add(9 * time.Hour), Type: typ, CustomerMRRBefore: before, CustomerMRR: after,
			Amount: after - before, PlanUUID: p.UUID, PreviousPlanUUID: p.UUID, PayingBefore: before > 0, PayingAfter: after > 0,
			SubscriptionUUID: "sub_" + p.ExternalID, SubscriptionExternalID: "s-" + p.ExternalID,
			SubscriptionMRRBefore: before, SubscriptionMRRAfter: after, Description: typ + " the " + p.Name + " plan"}
		if typ == engine.NewBusiness {
			m.PreviousPlanUUID, m.FirstPayment = "", true
		}
		return m
	}
	customers := []struct {
		id, country string
		ms          []engine.Movement
	}{
		{"A", "US", []engine.Movement{mv("2024-01-05", engine.NewBusiness, 0, 1000, e.gold), mv("2024-02-10", engine.Expansion, 1000, 1500, e.gold)}},
		{"B", "DE", []engine.Movement{mv("2024-01-20", engine.NewBusiness, 0, 2000, e.gold), mv("2024-03-03", engine.Churn, 2000, 0, e.gold)}},
		{"C", "US", []engine.Movement{mv("2024-02-01", engine.NewBusiness, 0, 3000, e.silver), mv("2024-02-15", engine.Churn, 3000, 0, e.silver),
			mv("2024-03-10", engine.Reactivation, 0, 3000, e.silver)}},
		{"D", "US", []engine.Movement{mv("2023-12-15", engine.NewBusiness, 0, 4000, e.gold), mv("2024-01-25", engine.Contraction, 4000, 3000, e.gold)}},
	}
	for _, c := range customers {
		attrs := accountseries.CustomerAttrs{UUID: "cus_" + c.id, Name: "Customer " + c.id, ExternalID: "ext-" + c.id,
			DataSourceUUID: ds.UUID, Country: c.country,
			PlanExternalIDs: map[string]string{e.gold.UUID: e.gold.ExternalID, e.silver.UUID: e.silver.ExternalID}}
		if err := e.d.Series().Apply(ctx, e.acc, &engine.Result{Movements: c.ms}, attrs); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *metricsEnv) get(build func(*api.Deps) apigw.Endpoint, route, account string, q url.Values) (int, map[string]any) {
	e.t.Helper()
	return apigwtest.Do(e.t, build(e.d), apigwtest.Call{Method: http.MethodGet, Route: route, Query: q, AccountID: account})
}

func query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

// field collects one key of every entry, as float64 (JSON numbers).
func field(body map[string]any, key string) []any {
	var out []any
	for _, e := range body["entries"].([]any) {
		out = append(out, e.(map[string]any)[key])
	}
	return out
}

func TestMetricsHandComputedMonthly(t *testing.T) {
	e := newMetricsEnv(t)
	q := query("start-date", "2024-01-01", "end-date", "2024-03-31", "interval", "month")
	status, mrr := e.get(api.MetricsMRR, "/v1/metrics/mrr", e.acc, q)
	if status != http.StatusOK {
		t.Fatalf("status %d %v", status, mrr)
	}
	want := map[string][]any{
		"date":              {"2024-01-31", "2024-02-29", "2024-03-31"},
		"mrr":               {6000.0, 6500.0, 7500.0},
		"mrr-new-business":  {3000.0, 3000.0, 0.0},
		"mrr-expansion":     {0.0, 500.0, 0.0},
		"mrr-contraction":   {-1000.0, 0.0, 0.0},
		"mrr-churn":         {0.0, -3000.0, -2000.0},
		"mrr-reactivation":  {0.0, 0.0, 3000.0},
		"percentage-change": {0.0, 8.33, 15.38},
	}
	for k, v := range want {
		if got := field(mrr, k); !reflect.DeepEqual(got, v) {
			t.Errorf("mrr %s = %v, want %v", k, got, v)
		}
	}
	if s := mrr["summary"]; !reflect.DeepEqual(s, map[string]any{"current": 7500.0, "previous": 6500.0, "percentage-change": 15.38}) {
		t.Errorf("summary = %v", s)
	}
	single := []struct {
		build func(*api.Deps) apigw.Endpoint
		path  string
		key   string
		want  []any
	}{
		{api.MetricsARR, "/v1/metrics/arr", "arr", []any{72000.0, 78000.0, 90000.0}},
		{api.MetricsARPA, "/v1/metrics/arpa", "arpa", []any{2000.0, 2166.0, 2500.0}},
		{api.MetricsASP, "/v1/metrics/asp", "asp", []any{1500.0, 3000.0, 0.0}},
		{api.MetricsCustomerCount, "/v1/metrics/customer-count", "customers", []any{3.0, 3.0, 3.0}},
		{api.MetricsCustomerChurnRate, "/v1/metrics/customer-churn-rate", "customer-churn-rate", []any{0.0, 0.0, 33.33}},
		{api.MetricsMRRChurnRate, "/v1/metrics/mrr-churn-rate", "mrr-churn-rate", []any{25.0, 41.67, -15.38}},
		{api.MetricsLTV, "/v1/metrics/ltv", "ltv", []any{0.0, 0.0, 7500.0}},
	}
	_, all := e.get(api.MetricsAll, "/v1/metrics/all", e.acc, q)
	for _, s := range single {
		status, body := e.get(s.build, s.path, e.acc, q)
		if status != http.StatusOK || !reflect.DeepEqual(field(body, s.key), s.want) {
			t.Errorf("%s: %d %v, want %v", s.path, status, field(body, s.key), s.want)
		}
		if keys := keysOf(body["entries"].([]any)[0]); !reflect.DeepEqual(keys, slices.Sorted(slices.Values([]string{"date", s.key, "percentage-change"}))) {
			t.Errorf("%s keys %v", s.path, keys)
		}
		if got := field(all, s.key); !reflect.DeepEqual(got, s.want) {
			t.Errorf("all %s = %v, want %v", s.key, got, s.want)
		}
	}
	summary := all["summary"].(map[string]any)
	if summary["current-mrr"] != 7500.0 || summary["previous-mrr"] != 6500.0 || summary["mrr-percentage-change"] != 15.38 ||
		summary["current-customer-churn-rate"] != 33.33 || len(summary) != 24 {
		t.Errorf("all summary = %v", summary)
	}
	if n := len(all["entries"].([]any)[0].(map[string]any)); n != 17 {
		t.Errorf("all entry has %d keys, want date + 8 metrics + 8 changes", n)
	}
}

// keysOf is the sorted keys of a decoded JSON object.
func keysOf(v any) []string {
	return slices.Sorted(maps.Keys(v.(map[string]any)))
}

func TestMetricsFiltersAndIsolation(t *testing.T) {
	e := newMetricsEnv(t)
	lastMRR := func(account string, kv ...string) any {
		status, body := e.get(api.MetricsMRR, "/v1/metrics/mrr", account,
			query(append([]string{"start-date", "2024-03-01", "end-date", "2024-03-31", "interval", "month"}, kv...)...))
		if status != http.StatusOK {
			t.Fatalf("%v: %d %v", kv, status, body)
		}
		return field(body, "mrr")[0]
	}
	tests := []struct {
		kv   []string
		want float64
	}{
		{nil, 7500},
		{[]string{"geo", "US"}, 7500},
		{[]string{"geo", "DE"}, 0},
		{[]string{"geo", "us,de"}, 7500},
		{[]string{"plans", "Gold"}, 4500},
		{[]string{"plans", "silver-ext"}, 3000},
		{[]string{"plans", e.gold.UUID + ",Silver"}, 7500},
		{[]string{"plans", "Gold", "geo", "US"}, 4500},
		{[]string{"plans", "No Such Plan"}, 0},
	}
	for _, tt := range tests {
		if got := lastMRR(e.acc, tt.kv...); got != tt.want {
			t.Errorf("%v: mrr %v, want %v", tt.kv, got, tt.want)
		}
	}
	if got := lastMRR(e.other); got != 0.0 {
		t.Errorf("another account sees mrr %v", got)
	}
}

func TestMetricsDefaultsAndErrors(t *testing.T) {
	e := newMetricsEnv(t)
	day := query("start-date", "2024-01-01", "end-date", "2024-02-01")
	if _, body := e.get(api.MetricsMRR, "/v1/metrics/mrr", e.acc, day); len(body["entries"].([]any)) != 32 {
		t.Errorf("mrr default interval: %d entries, want 32 days", len(body["entries"].([]any)))
	}
	if _, body := e.get(api.MetricsLTV, "/v1/metrics/ltv", e.acc, day); !reflect.DeepEqual(field(body, "date"), []any{"2024-01-31", "2024-02-01"}) {
		t.Errorf("ltv default interval: dates %v", field(body, "date"))
	}
	bad := func(msg, param string) map[string]any {
		return map[string]any{"code": 400.0, "message": msg, "param": param}
	}
	tests := []struct {
		q    url.Values
		want map[string]any
	}{
		{query("end-date", "2024-01-01"), bad(`Parameter "start-date" is missing`, "start-date")},
		{query("start-date", "2024-01-01"), bad(`Parameter "end-date" is missing`, "end-date")},
		{query("start-date", "2024-02-30", "end-date", "2024-03-01"),
			bad(`Invalid value for parameter "start-date": "2024-02-30" is not a date (YYYY-MM-DD)`, "start-date")},
		{query("start-date", "2024-03-01", "end-date", "2024-02-01"), bad(`Parameter "end-date" must not be before "start-date"`, "end-date")},
		{query("start-date", "2024-01-01", "end-date", "2024-02-01", "interval", "fortnight"),
			bad(`Invalid value for parameter "interval": "fortnight" (one of day, week, month, quarter, year)`, "interval")},
		{query("start-date", "2024-01-01", "end-date", "2024-02-01", "geo", "USA"),
			bad(`Invalid value for parameter "geo": "USA" is not an ISO 3166-1 alpha-2 country code`, "geo")},
		{query("start-date", "1900-01-01", "end-date", "2024-02-01", "interval", "day"),
			bad("The date range must not exceed 100 years", "end-date")},
		{query("start-date", "2024-01-01", "end-date", "2024-02-01", "filters", "country~EQUALS~US"),
			bad(`Parameter "filters" is not supported; filter with "geo" and "plans"`, "filters")},
	}
	for _, tt := range tests {
		status, body := e.get(api.MetricsAll, "/v1/metrics/all", e.acc, tt.q)
		if status != http.StatusBadRequest || !reflect.DeepEqual(body, tt.want) {
			t.Errorf("%v: %d %v, want %v", tt.q, status, body, tt.want)
		}
	}
	status, body := apigwtest.Do(t, api.MetricsUnknown(e.d), apigwtest.Call{Method: http.MethodGet, Route: "/v1/metrics/{metric}",
		PathParams: map[string]string{"metric": "happiness"}, Query: day, AccountID: e.acc})
	if status != http.StatusBadRequest || body["param"] != "metric" {
		t.Errorf("unknown metric: %d %v", status, body)
	}
}
