package metricsapi_test

import (
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

func TestMetricsHandComputedMonthly(t *testing.T) {
	e := apitest.NewMetricsEnv(t)
	q := apitest.Query("start-date", "2024-01-01", "end-date", "2024-03-31", "interval", "month")
	status, mrr := e.Get("MetricsMrr", e.Acc, q)
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
		if got := apitest.Field(mrr, k); !reflect.DeepEqual(got, v) {
			t.Errorf("mrr %s = %v, want %v", k, got, v)
		}
	}
	if s := mrr["summary"]; !reflect.DeepEqual(s, map[string]any{"current": 7500.0, "previous": 6500.0, "percentage-change": 15.38}) {
		t.Errorf("summary = %v", s)
	}
	single := []struct {
		op   string
		key  string
		want []any
	}{
		{"MetricsArr", "arr", []any{72000.0, 78000.0, 90000.0}},
		{"MetricsArpa", "arpa", []any{2000.0, 2166.0, 2500.0}},
		{"MetricsAsp", "asp", []any{1500.0, 3000.0, 0.0}},
		{"MetricsCustomerCount", "customers", []any{3.0, 3.0, 3.0}},
		{"MetricsCustomerChurnRate", "customer-churn-rate", []any{0.0, 0.0, 33.33}},
		{"MetricsMrrChurnRate", "mrr-churn-rate", []any{25.0, 41.67, -15.38}},
		{"MetricsLtv", "ltv", []any{0.0, 0.0, 7500.0}},
	}
	_, all := e.Get("MetricsAll", e.Acc, q)
	for _, s := range single {
		status, body := e.Get(s.op, e.Acc, q)
		if status != http.StatusOK || !reflect.DeepEqual(apitest.Field(body, s.key), s.want) {
			t.Errorf("%s: %d %v, want %v", s.op, status, apitest.Field(body, s.key), s.want)
		}
		if keys := apitest.KeysOf(body["entries"].([]any)[0]); !reflect.DeepEqual(keys, slices.Sorted(slices.Values([]string{"date", s.key, "percentage-change"}))) {
			t.Errorf("%s keys %v", s.op, keys)
		}
		if got := apitest.Field(all, s.key); !reflect.DeepEqual(got, s.want) {
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

func TestMetricsFiltersAndIsolation(t *testing.T) {
	e := apitest.NewMetricsEnv(t)
	lastMRR := func(account string, kv ...string) any {
		status, body := e.Get("MetricsMrr", account,
			apitest.Query(append([]string{"start-date", "2024-03-01", "end-date", "2024-03-31", "interval", "month"}, kv...)...))
		if status != http.StatusOK {
			t.Fatalf("%v: %d %v", kv, status, body)
		}
		return apitest.Field(body, "mrr")[0]
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
		{[]string{"plans", e.Gold.UUID + ",Silver"}, 7500},
		{[]string{"plans", "Gold", "geo", "US"}, 4500},
		{[]string{"plans", "No Such Plan"}, 0},
	}
	for _, tt := range tests {
		if got := lastMRR(e.Acc, tt.kv...); got != tt.want {
			t.Errorf("%v: mrr %v, want %v", tt.kv, got, tt.want)
		}
	}
	if got := lastMRR(e.Other); got != 0.0 {
		t.Errorf("another account sees mrr %v", got)
	}
}

func TestMetricsDefaultsAndErrors(t *testing.T) {
	e := apitest.NewMetricsEnv(t)
	day := apitest.Query("start-date", "2024-01-01", "end-date", "2024-02-01")
	if _, body := e.Get("MetricsMrr", e.Acc, day); len(body["entries"].([]any)) != 32 {
		t.Errorf("mrr default interval: %d entries, want 32 days", len(body["entries"].([]any)))
	}
	if _, body := e.Get("MetricsLtv", e.Acc, day); !reflect.DeepEqual(apitest.Field(body, "date"), []any{"2024-01-31", "2024-02-01"}) {
		t.Errorf("ltv default interval: dates %v", apitest.Field(body, "date"))
	}
	bad := func(msg, param string) map[string]any {
		return map[string]any{"code": 400.0, "message": msg, "param": param}
	}
	tests := []struct {
		q    url.Values
		want map[string]any
	}{
		{apitest.Query("end-date", "2024-01-01"), bad(`Parameter "start-date" is missing`, "start-date")},
		{apitest.Query("start-date", "2024-01-01"), bad(`Parameter "end-date" is missing`, "end-date")},
		{apitest.Query("start-date", "2024-02-30", "end-date", "2024-03-01"),
			bad(`Invalid value for parameter "start-date": "2024-02-30" is not a date (YYYY-MM-DD)`, "start-date")},
		{apitest.Query("start-date", "2024-03-01", "end-date", "2024-02-01"), bad(`Parameter "end-date" must not be before "start-date"`, "end-date")},
		{apitest.Query("start-date", "2024-01-01", "end-date", "2024-02-01", "interval", "fortnight"),
			bad(`Invalid value for parameter "interval": "fortnight" (one of day, week, month, quarter, year)`, "interval")},
		{apitest.Query("start-date", "2024-01-01", "end-date", "2024-02-01", "geo", "USA"),
			bad(`Invalid value for parameter "geo": "USA" is not an ISO 3166-1 alpha-2 country code`, "geo")},
		{apitest.Query("start-date", "1900-01-01", "end-date", "2024-02-01", "interval", "day"),
			bad("The date range must not exceed 100 years", "end-date")},
	}
	for _, tt := range tests {
		status, body := e.Get("MetricsAll", e.Acc, tt.q)
		if status != http.StatusBadRequest || !reflect.DeepEqual(body, tt.want) {
			t.Errorf("%v: %d %v, want %v", tt.q, status, body, tt.want)
		}
	}
	status, body := apitest.Do(t, e.D, "MetricsUnknown", apigwtest.Call{
		PathParams: map[string]string{"metric": "happiness"}, Query: day, AccountID: e.Acc})
	if status != http.StatusBadRequest || body["param"] != "metric" {
		t.Errorf("unknown metric: %d %v", status, body)
	}
}
