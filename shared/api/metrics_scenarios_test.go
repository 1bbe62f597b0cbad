package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// scenarioPlans are the engine scenario table's plans, by external id.
var scenarioPlans = []any{
	map[string]any{"external_id": "monthly", "name": "Silver", "interval_count": 1, "interval_unit": "month"},
	map[string]any{"external_id": "gold", "name": "Gold", "interval_count": 1, "interval_unit": "month"},
	map[string]any{"external_id": "quarterly", "name": "Quarterly", "interval_count": 3, "interval_unit": "month"},
	map[string]any{"external_id": "weekly", "name": "Weekly", "interval_count": 7, "interval_unit": "day"},
}

// scenarioInvoice is one invoice of customer c1 with its line items and transactions.
type scenarioInvoice struct {
	ext, date, due string
	items          []map[string]any
	txs            []map[string]any
}

// subItem is a subscription line item on subscription "sub"; extra overrides fields.
func subItem(plan, start, end string, amount int64, extra ...any) map[string]any {
	it := map[string]any{"type": "subscription", "plan_external_id": plan, "subscription_external_id": "sub",
		"service_period_start": start, "service_period_end": end, "amount_in_cents": amount, "quantity": 1}
	for i := 0; i+1 < len(extra); i += 2 {
		it[extra[i].(string)] = extra[i+1]
	}
	return it
}

func tx(kind, result, date string) map[string]any {
	return map[string]any{"type": kind, "result": result, "date": date}
}

func subEvent(ext, kind, date, effective string) map[string]any {
	return map[string]any{"external_id": ext, "customer_external_id": "c1", "event_type": kind, "event_date": date,
		"effective_date": effective, "subscription_external_id": "sub"}
}

func monthlyRun(first string, n int, amount int64) []scenarioInvoice {
	start, _ := time.Parse(time.DateOnly, first)
	out := make([]scenarioInvoice, n)
	for i := range out {
		s, e := start.AddDate(0, i, 0).Format(time.DateOnly), start.AddDate(0, i+1, 0).Format(time.DateOnly)
		out[i] = scenarioInvoice{ext: fmt.Sprintf("i%d", i), date: s, items: []map[string]any{subItem("monthly", s, e, amount)}}
	}
	return out
}

func scenarioPayload(invs []scenarioInvoice, evs []map[string]any) map[string]any {
	invoices, lines, txs := []any{}, []any{}, []any{}
	for _, inv := range invs {
		i := map[string]any{"external_id": inv.ext, "customer_external_id": "c1", "date": inv.date, "currency": "USD"}
		if inv.due != "" {
			i["due_date"] = inv.due
		}
		invoices = append(invoices, i)
		for _, it := range inv.items {
			it["invoice_external_id"] = inv.ext
			lines = append(lines, it)
		}
		for _, t := range inv.txs {
			t["invoice_external_id"] = inv.ext
			txs = append(txs, t)
		}
	}
	p := map[string]any{"external_id": "scenario", "customers": []any{map[string]any{"external_id": "c1", "name": "Ann"}},
		"plans": scenarioPlans, "invoices": invoices, "line_items": lines, "transactions": txs}
	if len(evs) > 0 {
		p["subscription_events"] = evs
	}
	return p
}

// scenarioSub is the expected Metrics-API subscription row.
type scenarioSub struct {
	plan     string
	mrr      float64
	quantity float64
}

// TestMetricsScenariosThroughJSONImports imports each example scenario of the metrics
// rules through json_imports, runs the import and jobs workers in-process with the
// clock at the scenario's "now", and checks the customer, its subscriptions and its
// activities against the engine's scenario table (shared/metrics/engine/scenarios_test.go).
func TestMetricsScenariosThroughJSONImports(t *testing.T) {
	refundFullOnly := func(s *model.Settings) { s.RefundHandling = "refund_full_only" }
	tests := []struct {
		name     string
		now      string
		settings func(*model.Settings)
		invoices []scenarioInvoice
		events   []map[string]any
		mrr, arr int64
		status   string
		since    any // "2024-01-01T00:00:00+00:00" or nil
		subs     []scenarioSub
		acts     []string // "date type movement mrr"
	}{
		{name: "quarterly plan 9000 -> 3000", now: "2024-02-01",
			invoices: []scenarioInvoice{{ext: "q", date: "2024-01-01", items: []map[string]any{subItem("quarterly", "2024-01-01", "2024-04-01", 9000)}}},
			mrr:      3000, arr: 36000, status: "Active", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Quarterly", 3000, 1}}, acts: []string{"2024-01-01 new_biz 3000 3000"}},
		{name: "7-day plan 1000 -> 4348", now: "2024-01-03",
			invoices: []scenarioInvoice{{ext: "w", date: "2024-01-01", items: []map[string]any{subItem("weekly", "2024-01-01", "2024-01-08", 1000)}}},
			mrr:      4348, arr: 52176, status: "Active", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Weekly", 4348, 1}}, acts: []string{"2024-01-01 new_biz 4348 4348"}},
		{name: "quantity change", now: "2024-02-10",
			invoices: []scenarioInvoice{
				{ext: "1", date: "2024-01-01", items: []map[string]any{subItem("monthly", "2024-01-01", "2024-02-01", 1000)}},
				{ext: "2", date: "2024-02-01", items: []map[string]any{subItem("monthly", "2024-02-01", "2024-03-01", 2000, "quantity", 2)}}},
			mrr: 2000, arr: 24000, status: "Active", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 2000, 2}}, acts: []string{"2024-01-01 new_biz 1000 1000", "2024-02-01 expansion 1000 2000"}},
		{name: "prorated upgrade mid-period", now: "2024-06-20",
			invoices: []scenarioInvoice{
				{ext: "1", date: "2024-06-01", items: []map[string]any{subItem("monthly", "2024-06-01", "2024-07-01", 5000)}},
				{ext: "2", date: "2024-06-16", items: []map[string]any{subItem("gold", "2024-06-16", "2024-07-01", 2500,
					"prorated", true, "proration_type", "differential")}}},
			mrr: 10000, arr: 120000, status: "Active", since: "2024-06-01T00:00:00+00:00",
			subs: []scenarioSub{{"Gold", 10000, 1}}, acts: []string{"2024-06-01 new_biz 5000 5000", "2024-06-16 expansion 5000 10000"}},
		{name: "downgrade at renewal", now: "2024-02-10",
			invoices: []scenarioInvoice{
				{ext: "1", date: "2024-01-01", items: []map[string]any{subItem("gold", "2024-01-01", "2024-02-01", 5000)}},
				{ext: "2", date: "2024-02-01", items: []map[string]any{subItem("monthly", "2024-02-01", "2024-03-01", 3000)}}},
			mrr: 3000, arr: 36000, status: "Active", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 3000, 1}}, acts: []string{"2024-01-01 new_biz 5000 5000", "2024-02-01 contraction -2000 3000"}},
		{name: "reactivation after cancellation", now: "2024-05-10",
			invoices: []scenarioInvoice{
				{ext: "i0", date: "2024-01-01", items: []map[string]any{subItem("monthly", "2024-01-01", "2024-02-01", 1000)}},
				{ext: "i1", date: "2024-02-01", items: []map[string]any{subItem("monthly", "2024-02-01", "2024-03-01", 1000,
					"cancelled_at", "2024-03-01")}},
				{ext: "r", date: "2024-05-01", items: []map[string]any{subItem("monthly", "2024-05-01", "2024-06-01", 1200)}}},
			mrr: 1200, arr: 14400, status: "Active", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 1200, 1}},
			acts: []string{"2024-01-01 new_biz 1000 1000", "2024-03-01 churn -1000 0", "2024-05-01 reactivation 1200 1200"}},
		{name: "failed payment past its due date: Past Due", now: "2024-02-10",
			invoices: []scenarioInvoice{
				{ext: "1", date: "2024-01-01", items: []map[string]any{subItem("monthly", "2024-01-01", "2024-02-01", 1000)},
					txs: []map[string]any{tx("payment", "successful", "2024-01-01")}},
				{ext: "2", date: "2024-02-01", due: "2024-02-08", items: []map[string]any{subItem("monthly", "2024-02-01", "2024-03-01", 1000)},
					txs: []map[string]any{tx("payment", "failed", "2024-02-01")}}},
			mrr: 1000, arr: 12000, status: "Past Due", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 1000, 1}}, acts: []string{"2024-01-01 new_biz 1000 1000"}},
		{name: "full refund with refund_full_only: stays a lead", now: "2024-01-10", settings: refundFullOnly,
			invoices: []scenarioInvoice{{ext: "1", date: "2024-01-01", items: []map[string]any{subItem("monthly", "2024-01-01", "2024-02-01", 1000)},
				txs: []map[string]any{tx("refund", "successful", "2024-01-04")}}},
			mrr: 0, arr: 0, status: "New Lead", since: nil},
		{name: "trial then paid", now: "2024-01-20",
			invoices: []scenarioInvoice{
				{ext: "t", date: "2024-01-01", items: []map[string]any{subItem("monthly", "2024-01-01", "2024-01-15", 0, "type", "trial")}},
				{ext: "p", date: "2024-01-15", items: []map[string]any{subItem("monthly", "2024-01-15", "2024-02-15", 1000)}}},
			mrr: 1000, arr: 12000, status: "Active", since: "2024-01-15T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 1000, 1}}, acts: []string{"2024-01-15 new_biz 1000 1000"}},
		{name: "discount and tax", now: "2024-01-10",
			invoices: []scenarioInvoice{{ext: "1", date: "2024-01-01", items: []map[string]any{subItem("monthly", "2024-01-01", "2024-02-01", 1100,
				"tax_amount_in_cents", 100, "discount_amount_in_cents", 500, "transaction_fees_in_cents", 30)}}},
			mrr: 1000, arr: 12000, status: "Active", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 1000, 1}}, acts: []string{"2024-01-01 new_biz 1000 1000"}},
		{name: "gap in service periods: Past Due during the gap", now: "2024-02-15",
			invoices: []scenarioInvoice{
				{ext: "1", date: "2024-01-01", items: []map[string]any{subItem("monthly", "2024-01-01", "2024-02-01", 1000)}},
				{ext: "3", date: "2024-03-01", items: []map[string]any{subItem("monthly", "2024-03-01", "2024-04-01", 1000)}}},
			mrr: 1000, arr: 12000, status: "Past Due", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 1000, 1}}, acts: []string{"2024-01-01 new_biz 1000 1000"}},
		{name: "gap closed: Active again", now: "2024-03-15",
			invoices: []scenarioInvoice{
				{ext: "1", date: "2024-01-01", items: []map[string]any{subItem("monthly", "2024-01-01", "2024-02-01", 1000)}},
				{ext: "3", date: "2024-03-01", items: []map[string]any{subItem("monthly", "2024-03-01", "2024-04-01", 1000)}}},
			mrr: 1000, arr: 12000, status: "Active", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 1000, 1}}, acts: []string{"2024-01-01 new_biz 1000 1000"}},
		{name: "scheduled cancellation, before it takes effect", now: "2024-02-10",
			invoices: monthlyRun("2024-01-01", 2, 1000),
			events:   []map[string]any{subEvent("e1", "subscription_cancellation_scheduled", "2024-02-05", "2024-03-01")},
			mrr:      1000, arr: 12000, status: "Active", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 1000, 1}}, acts: []string{"2024-01-01 new_biz 1000 1000"}},
		{name: "scheduled cancellation, after it takes effect", now: "2024-03-02",
			invoices: monthlyRun("2024-01-01", 2, 1000),
			events:   []map[string]any{subEvent("e1", "subscription_cancellation_scheduled", "2024-02-05", "2024-03-01")},
			mrr:      0, arr: 0, status: "Cancelled", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 0, 1}}, acts: []string{"2024-01-01 new_biz 1000 1000", "2024-03-01 churn -1000 0"}},
		{name: "scheduled cancellation retracted", now: "2024-03-02",
			invoices: monthlyRun("2024-01-01", 2, 1000),
			events: []map[string]any{subEvent("e1", "subscription_cancellation_scheduled", "2024-02-05", "2024-03-01"),
				subEvent("e2", "scheduled_subscription_cancellation_retracted", "2024-02-07", "2024-02-07")},
			mrr: 1000, arr: 12000, status: "Past Due", since: "2024-01-01T00:00:00+00:00",
			subs: []scenarioSub{{"Silver", 1000, 1}}, acts: []string{"2024-01-01 new_biz 1000 1000"}},
		{name: "one-time items only: stays a lead", now: "2024-01-10",
			invoices: []scenarioInvoice{{ext: "1", date: "2024-01-01", items: []map[string]any{
				{"type": "one_time", "amount_in_cents": 50000, "quantity": 1, "description": "Setup"}}}},
			mrr: 0, arr: 0, status: "New Lead", since: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now, err := time.Parse(time.DateOnly, tc.now)
			if err != nil {
				t.Fatal(err)
			}
			d, acc, ds := scenarioDeps(t, now.Add(12*time.Hour), tc.settings)
			status, body := apigwtest.Do(t, api.CreateJSONImport(d), apigwtest.Call{Method: "POST", Route: importsRoute,
				PathParams: map[string]string{"data_source_uuid": ds}, Body: scenarioPayload(tc.invoices, tc.events), AccountID: acc})
			if status != http.StatusOK {
				t.Fatalf("import: %d %v", status, body)
			}
			drainScenarioQueue(t, d, d.Config.ImportQueueURL, workers.Import(d))
			drainScenarioQueue(t, d, d.Config.JobsQueueURL, workers.Jobs(d))
			// Every record must have been imported, or a lead scenario would pass vacuously.
			status, body = apigwtest.Do(t, api.GetJSONImport(d), apigwtest.Call{Method: "GET", Route: importsRoute + "/{import_id}",
				PathParams: map[string]string{"data_source_uuid": ds, "import_id": body["id"].(string)}, AccountID: acc})
			if status != http.StatusOK || body["status"] != "completed" {
				t.Fatalf("import status: %d %v", status, body)
			}

			page, err := d.Store.ListCustomers(context.Background(), acc, store.CustomerFilter{DataSourceUUID: ds, ExternalID: "c1"}, 10, nil)
			if err != nil || len(page.Items) != 1 {
				t.Fatalf("customer c1: %v %d", err, len(page.Items))
			}
			uuid := page.Items[0].UUID
			_, cust := call(t, d, api.GetCustomer, "GET", "/v1/customers/{customer_uuid}", acc, uuid, nil, nil)
			if cust["mrr"] != float64(tc.mrr) || cust["arr"] != float64(tc.arr) || cust["status"] != tc.status ||
				cust["customer-since"] != tc.since {
				t.Errorf("customer mrr=%v arr=%v status=%v since=%v, want %d %d %s %v",
					cust["mrr"], cust["arr"], cust["status"], cust["customer-since"], tc.mrr, tc.arr, tc.status, tc.since)
			}
			_, body = call(t, d, api.ListCustomerSubscriptions, "GET", custSubsRoute, acc, uuid, nil, nil)
			var subs []scenarioSub
			for _, s := range entries(t, body) {
				subs = append(subs, scenarioSub{plan: fmt.Sprint(s["plan"]), mrr: s["mrr"].(float64), quantity: s["quantity"].(float64)})
			}
			if !slices.Equal(subs, tc.subs) {
				t.Errorf("subscriptions %+v, want %+v", subs, tc.subs)
			}
			_, body = call(t, d, api.ListCustomerActivities, "GET", custActsRoute, acc, uuid, nil, nil)
			var acts []string
			for _, a := range entries(t, body) {
				date, _ := a["date"].(string)
				acts = append(acts, fmt.Sprintf("%.10s %v %v %v", date, a["type"], a["activity-mrr-movement"], a["activity-mrr"]))
			}
			if !slices.Equal(acts, tc.acts) {
				t.Errorf("activities %q, want %q", acts, tc.acts)
			}
		})
	}
}

// scenarioDeps is a fresh environment whose clock (and store clock) stands at now, with
// one account (settings adjusted) and one data source; it returns the deps, account id
// and data source uuid.
func scenarioDeps(t *testing.T, now time.Time, settings func(*model.Settings)) (*app.Deps, string, string) {
	t.Helper()
	env := testenv.New(t)
	d := *env.Deps
	d.Now = func() time.Time { return now }
	d.Store = store.New(env.Deps.Clients.DynamoDB, env.TableName, d.Now)
	ctx := context.Background()
	acc := env.NewAccount(t, "Scenarios")
	if settings != nil {
		st := acc.Settings
		settings(&st)
		if err := d.Store.UpdateSettings(ctx, acc.ID, st); err != nil {
			t.Fatal(err)
		}
	}
	ds := model.NewDataSource(acc.ID, "Billing", now)
	if err := d.Store.CreateDataSource(ctx, ds); err != nil {
		t.Fatal(err)
	}
	return &d, acc.ID, ds.UUID
}

// drainScenarioQueue feeds a queue to its worker, as Lambda does, until it is empty.
func drainScenarioQueue(t *testing.T, d *app.Deps, queueURL string, handler sqsworker.Handler) {
	t.Helper()
	ctx := context.Background()
	c := d.Clients.SQS
	for idle := 0; idle < 2; {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			idle++
			continue
		}
		idle = 0
		ev := events.SQSEvent{}
		for _, m := range out.Messages {
			ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body),
				Attributes: m.Attributes})
		}
		resp, err := handler(ctx, ev)
		if err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("worker: %v %+v", err, resp)
		}
		for _, m := range out.Messages {
			if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
