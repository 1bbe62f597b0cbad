package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/api/customers"
	"github.com/subsight/subsight/shared/api/metricsapi"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/workers"
)

// TestExchangeRateDriftEndToEnd imports a USD account's customers through json_imports,
// loads the exchange rates with load-fx-rates and runs the workers, then reads the API:
//
//	gb (GB): GBP 50.00 monthly in January and February 2024, at 1.25 then 1.27.
//	de (DE): EUR 40.00 in January (1.09) and February (1.0851), 45.00 in March (1.08),
//	         cancelled on 20 March.
//	us (US): USD 30.00 monthly, January to March.
//
// gb's February renewal is worth USD 1.00 more only because of the rate: no expansion, its
// MRR is 6350, and the /mrr entries carry the difference as mrr-exchange-rate-impact, so
// that start MRR + movements + impact = end MRR in every entry.
func TestExchangeRateDriftEndToEnd(t *testing.T) {
	te := testenv.New(t)
	acc := te.NewAccount(t, "Multi-currency")
	importFXPortfolio(t, te, acc.ID)
	te.DrainWorkers(t)
	if c := customerByExternalID(t, te.API, acc.ID, "gb"); c["mrr"] != 0.0 {
		t.Fatalf("gb before its rates were loaded: %v", c)
	}

	rates := filepath.Join(t.TempDir(), "rates.csv")
	csv := "date,currency,rate\n2024-01-01,GBP,1.25\n2024-02-01,GBP,1.27\n" +
		"2024-01-01,EUR,1.09\n2024-02-01,EUR,1.0851\n2024-03-01,EUR,1.08\n"
	if err := os.WriteFile(rates, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runCmd(t, env{store: te.Deps.Store, jobs: te.Deps.Jobs}, "load-fx-rates", "-account", acc.ID, "-file", rates); err != nil ||
		out["recomputations"] != 3.0 {
		t.Fatalf("load-fx-rates: %v %v", out, err)
	}
	te.DrainJobs(t, workers.Jobs(te.Workers))
	if out, err := runCmd(t, env{store: te.Deps.Store}, "check-series", "-account", acc.ID); err != nil || out["ok"] != true {
		t.Fatalf("check-series: %v %v", out, err)
	}

	gb := customerByExternalID(t, te.API, acc.ID, "gb")
	if gb["mrr"] != 6350.0 || gb["arr"] != 76200.0 {
		t.Errorf("gb mrr %v arr %v, want 6350 and 76200 (GBP 50.00 at 1.27)", gb["mrr"], gb["arr"])
	}
	uuid := gb["uuid"].(string)
	customerPath := map[string]string{"customer_uuid": uuid}
	subs := get(t, te.API, metricsapi.ListCustomerSubscriptions, "/v1/customers/{customer_uuid}/subscriptions", acc.ID, nil, customerPath)
	if s := subs["entries"].([]any); len(s) != 1 || s[0].(map[string]any)["mrr"] != 6350.0 {
		t.Errorf("gb subscriptions %v", s)
	}
	acts := get(t, te.API, metricsapi.ListCustomerActivities, "/v1/customers/{customer_uuid}/activities", acc.ID, nil, customerPath)
	if got := activitySummary(acts); !reflect.DeepEqual(got, []string{"new_biz 6250 6250"}) {
		t.Errorf("gb activities %v, want only the purchase at 1.25", got)
	}
	expansions := get(t, te.API, metricsapi.ListActivities, "/v1/activities", acc.ID, url.Values{"type": {"expansion"}}, nil)
	if got := activitySummary(expansions); !reflect.DeepEqual(got, []string{"expansion 540 4860"}) {
		t.Errorf("account expansions %v, want only de's price change (500 × 1.08)", got)
	}

	// The example alone (geo=GB), by month: the renewal is an impact, not an expansion.
	gbMRR := get(t, te.API, metricsapi.MetricsMRR, "/v1/metrics/mrr", acc.ID,
		url.Values{"start-date": {"2024-01-01"}, "end-date": {"2024-02-29"}, "interval": {"month"}, "geo": {"GB"}}, nil)
	wantGB := []any{
		map[string]any{"date": "2024-01-31", "mrr": 6250.0, "percentage-change": 0.0, "mrr-new-business": 6250.0,
			"mrr-expansion": 0.0, "mrr-contraction": 0.0, "mrr-churn": 0.0, "mrr-reactivation": 0.0, "mrr-exchange-rate-impact": 0.0},
		map[string]any{"date": "2024-02-29", "mrr": 6350.0, "percentage-change": 1.6, "mrr-new-business": 0.0,
			"mrr-expansion": 0.0, "mrr-contraction": 0.0, "mrr-churn": 0.0, "mrr-reactivation": 0.0, "mrr-exchange-rate-impact": 100.0},
	}
	if !reflect.DeepEqual(gbMRR["entries"], wantGB) {
		t.Errorf("geo=GB /mrr entries\n got %v\nwant %v", gbMRR["entries"], wantGB)
	}

	// The whole account by month: Jan 6250 + 4360 + 3000; Feb impact +100 (gb) − 20 (de
	// 4340.4); Mar de repriced at 1.08 (−20), its price change (+540), its churn (−4860).
	all := get(t, te.API, metricsapi.MetricsMRR, "/v1/metrics/mrr", acc.ID,
		url.Values{"start-date": {"2024-01-01"}, "end-date": {"2024-04-30"}, "interval": {"month"}}, nil)
	keys := []string{"mrr", "mrr-new-business", "mrr-expansion", "mrr-churn", "mrr-exchange-rate-impact"}
	wantAll := [][]float64{{13610, 13610, 0, 0, 0}, {13690, 0, 0, 0, 80}, {9350, 0, 540, -4860, -20}, {9350, 0, 0, 0, 0}}
	var gotAll [][]float64
	for _, e := range all["entries"].([]any) {
		var row []float64
		for _, k := range keys {
			row = append(row, e.(map[string]any)[k].(float64))
		}
		gotAll = append(gotAll, row)
	}
	if !reflect.DeepEqual(gotAll, wantAll) {
		t.Errorf("account /mrr by month %v\n got %v\nwant %v", keys, gotAll, wantAll)
	}

	// The identity in every entry, from before the first invoice, for every interval and
	// filter; the last entry is what the customers' MRR adds up to.
	total := 0.0
	for _, ext := range []string{"gb", "de", "us"} {
		total += customerByExternalID(t, te.API, acc.ID, ext)["mrr"].(float64)
	}
	for _, geo := range []string{"", "GB", "DE,GB"} {
		for _, iv := range []string{"day", "week", "month", "quarter", "year"} {
			q := url.Values{"start-date": {"2023-12-01"}, "end-date": {"2024-04-30"}, "interval": {iv}}
			if geo != "" {
				q.Set("geo", geo)
			}
			body := get(t, te.API, metricsapi.MetricsMRR, "/v1/metrics/mrr", acc.ID, q, nil)
			mrr := 0.0
			for _, raw := range body["entries"].([]any) {
				e := raw.(map[string]any)
				impact, ok := e["mrr-exchange-rate-impact"].(float64)
				if !ok {
					t.Fatalf("%v: entry %v has no mrr-exchange-rate-impact", q, e)
				}
				mrr += e["mrr-new-business"].(float64) + e["mrr-expansion"].(float64) + e["mrr-contraction"].(float64) +
					e["mrr-churn"].(float64) + e["mrr-reactivation"].(float64) + impact
				if mrr != e["mrr"].(float64) {
					t.Fatalf("%v %s: start + movements + impact = %v, mrr %v", q, e["date"], mrr, e["mrr"])
				}
			}
			if geo == "" && mrr != total {
				t.Errorf("%s: the series end at %v, the customers' MRR adds up to %v", iv, mrr, total)
			}
		}
	}
	// Where nothing was repriced, the entries are exactly ChartMogul's.
	us := get(t, te.API, metricsapi.MetricsMRR, "/v1/metrics/mrr", acc.ID,
		url.Values{"start-date": {"2024-01-01"}, "end-date": {"2024-04-30"}, "interval": {"month"}, "geo": {"US"}}, nil)
	if _, ok := us["entries"].([]any)[0].(map[string]any)["mrr-exchange-rate-impact"]; ok {
		t.Errorf("geo=US entries carry an exchange-rate impact: %v", us["entries"])
	}
}

// importFXPortfolio imports the three customers of TestExchangeRateDriftEndToEnd.
func importFXPortfolio(t *testing.T, te *testenv.Env, accountID string) {
	t.Helper()
	type period struct {
		customer, currency string
		month              int // 1 = January 2024
		amount             int64
		cancelledAt        string
	}
	periods := []period{{"gb", "GBP", 1, 5000, ""}, {"gb", "GBP", 2, 5000, ""},
		{"de", "EUR", 1, 4000, ""}, {"de", "EUR", 2, 4000, ""}, {"de", "EUR", 3, 4500, "2024-03-20T00:00:00Z"},
		{"us", "USD", 1, 3000, ""}, {"us", "USD", 2, 3000, ""}, {"us", "USD", 3, 3000, ""}}
	var invoices, items []any
	for _, p := range periods {
		start := time.Date(2024, time.Month(p.month), 1, 0, 0, 0, 0, time.UTC)
		invoice, item := monthlyPeriod(fmt.Sprintf("%s-%d", p.customer, p.month), p.customer, p.currency, start, p.amount)
		if p.cancelledAt != "" {
			item["cancelled_at"] = p.cancelledAt
		}
		invoices, items = append(invoices, invoice), append(items, item)
	}
	customers := []any{map[string]any{"external_id": "gb", "name": "GB", "country": "GB"},
		map[string]any{"external_id": "de", "name": "DE", "country": "DE"},
		map[string]any{"external_id": "us", "name": "US", "country": "US"}}
	importMonthly(t, te, accountID, "fx", customers, invoices, items)
}

func get(t *testing.T, d *api.Deps, build func(*api.Deps) apigw.Endpoint, route, accountID string, q url.Values,
	path map[string]string) map[string]any {
	t.Helper()
	status, body := apigwtest.Do(t, build(d), apigwtest.Call{Method: http.MethodGet, Route: route, Query: q,
		PathParams: path, AccountID: accountID})
	if status != http.StatusOK {
		t.Fatalf("%s %v: %d %v", route, q, status, body)
	}
	return body
}

func customerByExternalID(t *testing.T, d *api.Deps, accountID, ext string) map[string]any {
	t.Helper()
	body := get(t, d, customers.ListCustomers, "/v1/customers", accountID, url.Values{"external_id": {ext}}, nil)
	entries := body["entries"].([]any)
	if len(entries) != 1 {
		t.Fatalf("customer %s: %v", ext, body)
	}
	return entries[0].(map[string]any)
}

// activitySummary renders activities as "type movement activity-mrr".
func activitySummary(body map[string]any) []string {
	var out []string
	for _, raw := range body["entries"].([]any) {
		a := raw.(map[string]any)
		out = append(out, fmt.Sprintf("%s %v %v", a["type"], a["activity-mrr-movement"], a["activity-mrr"]))
	}
	return out
}
