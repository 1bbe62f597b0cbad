package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api/jsonimports"
	"github.com/subsight/subsight/shared/api/metricsapi"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/workers"
)

// TestCalendarChangeRebucketsTheSeries: after set-setting time_zone and week_start_on
// and the recomputations they enqueue, the account's Metrics API answers exactly what an
// account created with that calendar answers for the same data, for every interval.
// Invoices start at midnight UTC, which is the evening before in New York, so every
// movement changes day (and the January ones change month and year).
func TestCalendarChangeRebucketsTheSeries(t *testing.T) {
	te := testenv.New(t)
	ctx := context.Background()
	changed, reference := te.NewAccount(t, "Changes calendar"), te.NewAccount(t, "Born in New York")
	if err := te.Deps.Store.UpdateCalendar(ctx, reference.ID, "America/New_York", "sunday"); err != nil {
		t.Fatal(err)
	}
	for _, acc := range []string{changed.ID, reference.ID} {
		importPortfolio(t, te, acc)
	}
	te.DrainWorkers(t)

	metrics := func(account, interval string) map[string]any {
		q := url.Values{"start-date": {"2023-12-01"}, "end-date": {"2024-04-30"}, "interval": {interval}}
		status, body := apigwtest.Do(t, metricsapi.MetricsAll(te.API), apigwtest.Call{Method: http.MethodGet,
			Route: "/v1/metrics/all", Query: q, AccountID: account})
		if status != http.StatusOK {
			t.Fatalf("%s %s: %d %v", account, interval, status, body)
		}
		return body
	}
	intervals := []string{"day", "week", "month", "quarter", "year"}
	for _, iv := range []string{"day", "month", "year"} {
		if reflect.DeepEqual(metrics(changed.ID, iv), metrics(reference.ID, iv)) {
			t.Fatalf("%s: the calendars answer alike before the change; the test proves nothing", iv)
		}
	}

	e := env{store: te.Deps.Store, jobs: te.Deps.Jobs}
	for _, s := range [][2]string{{"time_zone", "America/New_York"}, {"week_start_on", "Sunday"}} {
		out, err := runCmd(t, e, "set-setting", "-account", changed.ID, "-setting", s[0], "-value", s[1])
		if err != nil || out["recomputations"] != 3.0 {
			t.Fatalf("set-setting %s: %v %v", s[0], out, err)
		}
	}
	if acc, _ := te.Deps.Store.GetAccount(ctx, changed.ID); acc.TimeZone != "America/New_York" || acc.WeekStartOn != "sunday" {
		t.Fatalf("calendar stored as %q %q", acc.TimeZone, acc.WeekStartOn)
	}
	te.DrainJobs(t, workers.Jobs(te.Workers))
	testenv.CheckSeries(t, te.Workers, changed.ID)
	testenv.CheckSeries(t, te.Workers, reference.ID)
	for _, iv := range intervals {
		if got, want := metrics(changed.ID, iv), metrics(reference.ID, iv); !reflect.DeepEqual(got, want) {
			t.Errorf("%s after the change:\n got %v\nwant %v", iv, got, want)
		}
	}

	for _, bad := range [][2]string{{"time_zone", "Mars/Olympus"}, {"time_zone", "Local"}, {"week_start_on", "friday"}} {
		if _, err := runCmd(t, e, "set-setting", "-account", changed.ID, "-setting", bad[0], "-value", bad[1]); err == nil {
			t.Errorf("%s=%s accepted", bad[0], bad[1])
		}
	}
}

// importPortfolio imports three customers with monthly invoices starting at midnight
// UTC: c1 from January 2024 with an upgrade in March, c2 from February and cancelling
// at the end of March, c3 from December 2023.
func importPortfolio(t *testing.T, te *testenv.Env, accountID string) {
	t.Helper()
	type run struct {
		customer string
		first    string // first service period start
		amounts  []int64
	}
	runs := []run{{"c1", "2024-01-01", []int64{1000, 1000, 1500, 1500}}, {"c2", "2024-02-01", []int64{2000, 2000}},
		{"c3", "2023-12-01", []int64{700, 700, 700, 700, 700}}}
	var customers, invoices, items []any
	for _, r := range runs {
		customers = append(customers, map[string]any{"external_id": r.customer, "name": r.customer, "country": "US"})
		first, _ := time.Parse(time.DateOnly, r.first)
		for i, amount := range r.amounts {
			start := first.AddDate(0, i, 0)
			invoice, item := monthlyPeriod(fmt.Sprintf("%s-%d", r.customer, i), r.customer, "USD", start, amount)
			if r.customer == "c2" && i == len(r.amounts)-1 {
				item["cancelled_at"] = start.AddDate(0, 1, 0).Format(time.RFC3339)
			}
			invoices, items = append(invoices, invoice), append(items, item)
		}
	}
	importMonthly(t, te, accountID, "calendar", customers, invoices, items)
}

// monthlyPeriod is a json_imports invoice of one monthly period of the customer's
// subscription <customer>-sub on the plan "monthly", and its line item.
func monthlyPeriod(ext, customer, currency string, start time.Time, amount int64) (invoice, item map[string]any) {
	invoice = map[string]any{"external_id": ext, "customer_external_id": customer,
		"date": start.Format(time.RFC3339), "currency": currency}
	item = map[string]any{"invoice_external_id": ext, "type": "subscription", "plan_external_id": "monthly",
		"subscription_external_id": customer + "-sub", "service_period_start": start.Format(time.RFC3339),
		"service_period_end": start.AddDate(0, 1, 0).Format(time.RFC3339), "amount_in_cents": amount, "quantity": 1}
	return invoice, item
}

// importMonthly creates a data source in the account and imports the records into it
// through json_imports, with the plan "monthly".
func importMonthly(t *testing.T, te *testenv.Env, accountID, externalID string, customers, invoices, items []any) {
	t.Helper()
	ds := te.NewDataSource(t, accountID, "Billing")
	payload := map[string]any{"external_id": externalID, "customers": customers, "invoices": invoices, "line_items": items,
		"plans": []any{map[string]any{"external_id": "monthly", "name": "Monthly", "interval_count": 1, "interval_unit": "month"}}}
	status, body := apigwtest.Do(t, jsonimports.CreateJSONImport(te.API), apigwtest.Call{Method: http.MethodPost,
		Route: "/v1/data_sources/{data_source_uuid}/json_imports", PathParams: map[string]string{"data_source_uuid": ds.UUID},
		Body: payload, AccountID: accountID})
	if status != http.StatusOK {
		t.Fatalf("import: %d %v", status, body)
	}
}
