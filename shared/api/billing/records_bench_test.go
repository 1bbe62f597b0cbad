package billing_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/workers"
)

// BenchmarkBillingRecordsDynamoDB reports the DynamoDB requests and capacity units of the
// line item, transaction, disabled-state, invoice update, json_imports listing, data
// source flag and activities export operations (docs/benchmarks.md, "Billing records"):
// requests as sent, read and write units computed from the items read and written with
// DynamoDB's rules (ddbmeter.ReadRecorder, WriteRecorder), not moto's placeholders. The
// customer has 12 monthly invoices of one line item and one payment each.
//
//	MOTO_SERVER=.venv/bin/moto_server go test ./shared/api/billing -run '^$' -bench BillingRecords -benchtime 5x
func BenchmarkBillingRecordsDynamoDB(b *testing.B) {
	env := testenv.New(b)
	meter, reads, writes := ddbmeter.New(), &ddbmeter.ReadRecorder{}, &ddbmeter.WriteRecorder{}
	cfg := env.AWS
	reads.Attach(&cfg)
	writes.Attach(&cfg)
	deps := env.With(meter.Client(cfg), nil)
	d := deps.API()
	acc := env.NewAccount(b, "Records bench").ID
	call := func(operation string, params map[string]string, q url.Values, body any, want int) map[string]any {
		b.Helper()
		status, got := apitest.Do(b, d, operation, apigwtest.Call{PathParams: params, Query: q, Body: body, AccountID: acc})
		if status != want {
			b.Fatalf("%s: %d %v", operation, status, got)
		}
		return got
	}
	ds := call("CreateDataSource", nil, nil, map[string]any{"name": "Bench"}, 201)["uuid"].(string)
	plan := call("CreatePlan", nil, nil, map[string]any{"data_source_uuid": ds, "name": "Gold",
		"external_id": "gold", "interval_count": 1, "interval_unit": "month"}, 201)["uuid"].(string)
	silver := call("CreatePlan", nil, nil, map[string]any{"data_source_uuid": ds, "name": "Silver",
		"external_id": "silver", "interval_count": 1, "interval_unit": "month"}, 201)["uuid"].(string)
	customer := func(ext string) string {
		return call("CreateCustomer", nil, nil, map[string]any{"data_source_uuid": ds,
			"external_id": ext, "name": ext}, 201)["uuid"].(string)
	}
	month := func(ext, sub string, m int) map[string]any {
		start := time.Date(2024, time.Month(m+1), 1, 0, 0, 0, 0, time.UTC)
		return map[string]any{"external_id": ext, "date": start.Format(time.RFC3339), "currency": "USD",
			"line_items": []map[string]any{{"type": "subscription", "external_id": "li-" + ext, "subscription_external_id": sub,
				"plan_uuid": plan, "service_period_start": start.Format(time.RFC3339),
				"service_period_end": start.AddDate(0, 1, 0).Format(time.RFC3339), "amount_in_cents": 1000 + m}},
			"transactions": []map[string]any{{"type": "payment", "result": "successful", "date": start.Format(time.RFC3339),
				"external_id": "tr-" + ext}}}
	}
	importInvoices := func(cus string, invs ...map[string]any) []any {
		return call("ImportCustomerInvoices",
			map[string]string{"customer_uuid": cus}, nil, map[string]any{"invoices": invs}, 201)["invoices"].([]any)
	}
	main := customer("bench")
	var twelve []map[string]any
	for m := range 12 {
		twelve = append(twelve, month(fmt.Sprintf("inv-%d", m), "sub", m))
	}
	invs := importInvoices(main, twelve...)
	first := invs[0].(map[string]any)
	line := first["line_items"].([]any)[0].(map[string]any)["uuid"].(string)
	tx := first["transactions"].([]any)[0].(map[string]any)["uuid"].(string)
	ev := call("CreateSubscriptionEvent", nil, nil, map[string]any{"subscription_event": map[string]any{
		"data_source_uuid": ds, "customer_external_id": "bench", "subscription_external_id": "sub", "external_id": "ev-bench",
		"event_type": "subscription_cancelled", "event_date": "2024-12-20", "effective_date": "2024-12-20"}}, 201)["id"].(float64)
	for i := range 10 {
		call("CreateJsonImport", map[string]string{"data_source_uuid": ds}, nil, map[string]any{
			"external_id": fmt.Sprint("batch-", i), "customers": []any{map[string]any{"external_id": fmt.Sprint("imp-", i), "name": "I"}}}, 200)
	}
	env.DrainImports(b)
	export := call("CreateActivitiesExport", nil, nil, map[string]any{}, 200)["id"].(string)
	env.DrainJobs(b, workers.Jobs(deps.Workers()))

	li := map[string]string{"line_item_uuid": line}
	tr := map[string]string{"transaction_uuid": tx}
	inv := map[string]string{"invoice_uuid": first["uuid"].(string)}
	// Line items are added to (and deleted from) the last invoice, so that the others keep
	// one line item and one transaction.
	last := map[string]string{"invoice_uuid": invs[len(invs)-1].(map[string]any)["uuid"].(string)}
	byExt := func(ext string) url.Values { return url.Values{"data_source_uuid": {ds}, "external_id": {ext}} }
	toggle := func(i int) any { return map[string]any{"disabled": i%2 == 0} }
	type op struct {
		name   string
		op     string
		params map[string]string
		query  url.Values
		body   func(i int) any
		want   int
	}
	nobody := func(int) any { return nil }
	ops := []op{
		{"CreateInvoiceLineItem", "CreateInvoiceLineItem", last, nil, func(i int) any {
			return map[string]any{"type": "one_time", "external_id": fmt.Sprint("added-", apitest.BenchSeq.Add(1)), "amount_in_cents": 100}
		}, 201},
		{"GetLineItem", "GetLineItem", li, nil, nobody, 200},
		{"GetLineItem by external id", "GetLineItemByExternalId", nil, byExt("li-inv-5"), nobody, 200},
		{"UpdateLineItem (plan: the subscription follows)", "UpdateLineItem", li, nil, func(i int) any {
			return map[string]any{"plan_uuid": []string{silver, plan}[i%2]}
		}, 200},
		{"UpdateLineItem (amount)", "UpdateLineItem", li, nil, func(i int) any {
			return map[string]any{"amount_in_cents": 2000 + i}
		}, 200},
		{"SetLineItemDisabled", "SetLineItemDisabled", li, nil, toggle, 200},
		{"GetTransaction", "GetTransaction", tr, nil, nobody, 200},
		{"UpdateTransaction (result)", "UpdateTransaction", tr, nil, func(i int) any {
			return map[string]any{"result": []string{"failed", "successful"}[i%2]}
		}, 200},
		{"SetTransactionDisabled", "SetTransactionDisabled", tr, nil, toggle, 200},
		{"SetInvoiceDisabled", "SetInvoiceDisabled", inv, nil, toggle, 200},
		{"SetInvoiceDisabled by external id", "SetInvoiceDisabledByExternalId", nil, byExt("inv-3"), toggle, 200},
		{"UpdateInvoice (due_date)", "UpdateInvoice", inv, nil, func(i int) any {
			return map[string]any{"due_date": fmt.Sprintf("2024-01-%02dT00:00:00Z", 2+i%20)}
		}, 200},
		{"SetSubscriptionEventDisabled", "SetSubscriptionEventDisabled",
			map[string]string{"id": fmt.Sprint(int64(ev))}, nil, toggle, 200},
		{"ListJSONImports (10 imports of 1 customer)", "ListJsonImports", map[string]string{"data_source_uuid": ds}, nil, nobody, 200},
		{"GetDataSource with_processing_status (10 imports)", "GetDataSource",
			map[string]string{"uuid": ds}, url.Values{"with_processing_status": {"true"}}, nobody, 200},
		{"GetDataSource with both settings flags", "GetDataSource", map[string]string{"uuid": ds},
			url.Values{"with_auto_churn_subscription_setting": {"true"}, "with_invoice_handling_setting": {"true"}}, nobody, 200},
		{"PutPlan (name)", "PutPlan", map[string]string{"plan_uuid": plan}, nil, func(i int) any {
			return map[string]any{"name": fmt.Sprint("Gold ", i)}
		}, 202},
		{"CreateActivitiesExport", "CreateActivitiesExport", nil, nil, func(int) any {
			return map[string]any{"type": "new_biz"}
		}, 200},
		{"GetActivitiesExport (succeeded)", "GetActivitiesExport", map[string]string{"id": export}, nil, nobody, 200},
	}
	measure := func(b *testing.B, run func()) {
		meter.Reset()
		reads.Reset()
		writes.Reset()
		run()
		s := meter.Snapshot()
		b.ReportMetric(float64(s.TotalRequests())/float64(b.N), "ddb-requests/op")
		for name, n := range s.Requests {
			b.ReportMetric(float64(n)/float64(b.N), name+"/op")
		}
		b.ReportMetric(reads.Reads().Units/float64(b.N), "RCU/op")
		b.ReportMetric(writes.Units()/float64(b.N), "WCU/op")
	}
	for _, o := range ops {
		b.Run(o.name, func(b *testing.B) {
			measure(b, func() {
				for i := range b.N {
					call(o.op, o.params, o.query, o.body(i), o.want)
				}
			})
		})
	}
	// Deletions need one object per iteration, made before the measurement.
	b.Run("DeleteLineItem", func(b *testing.B) {
		uuids := make([]string, b.N)
		for i := range b.N {
			uuids[i] = call("CreateInvoiceLineItem", last, nil,
				map[string]any{"type": "one_time", "external_id": fmt.Sprint("del-", apitest.BenchSeq.Add(1)), "amount_in_cents": 100}, 201)["uuid"].(string)
		}
		measure(b, func() {
			for _, u := range uuids {
				call("DeleteLineItem", map[string]string{"line_item_uuid": u}, nil, nil, 204)
			}
		})
	})
	// A customer's first 12 invoices (36 records, every one with an external id): the
	// claims of their external ids are conditional writes (docs/benchmarks.md).
	b.Run("ImportCustomerInvoices (12 new invoices)", func(b *testing.B) {
		uuids := make([]string, b.N)
		for i := range b.N {
			uuids[i] = customer(fmt.Sprint("new-", apitest.BenchSeq.Add(1)))
		}
		measure(b, func() {
			for _, u := range uuids {
				var months []map[string]any
				for m := range 12 {
					months = append(months, month(fmt.Sprintf("%s-%d", u, m), "sub-"+u, m))
				}
				importInvoices(u, months...)
			}
		})
		b.ReportMetric(writes.Units()/float64(b.N)/36, "WCU/record")
	})
	b.Run("DeleteCustomerInvoices (12 invoices)", func(b *testing.B) {
		uuids := make([]string, b.N)
		for i := range b.N {
			uuids[i] = customer(fmt.Sprint("del-all-", apitest.BenchSeq.Add(1)))
			var months []map[string]any
			for m := range 12 {
				months = append(months, month(fmt.Sprintf("%s-%d", uuids[i], m), "sub-"+uuids[i], m))
			}
			importInvoices(uuids[i], months...)
		}
		measure(b, func() {
			for _, u := range uuids {
				call("DeleteCustomerInvoices",
					map[string]string{"data_source_uuid": ds, "customer_uuid": u}, nil, nil, 204)
			}
		})
	})
}
