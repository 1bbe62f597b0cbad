package api_test

import (
	"context"
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
)

// benchSeq makes external ids unique across benchmark rounds.
var benchSeq atomic.Int64

// meteredEnv is a resourceEnv whose store counts its DynamoDB traffic.
func meteredEnv(b *testing.B) (*resourceEnv, *ddbmeter.Meter) {
	env := testenv.New(b)
	meter := ddbmeter.New()
	d := env.With(meter.Client(env.AWS), nil).API()
	e := &resourceEnv{t: b, env: env, d: d, ctx: context.Background()}
	e.acc, e.other = e.account("Bench"), e.account("Other")
	e.ds, e.ds2 = e.dataSource(e.acc, "Billing"), e.dataSource(e.acc, "Second")
	e.member.AccountID, e.member.Email, e.member.Name = e.acc, "bench@example.com", "Bench"
	if err := e.d.Store.PutMember(e.ctx, e.member); err != nil {
		b.Fatal(err)
	}
	e.customer = e.newCustomer(e.acc, e.ds)
	return e, meter
}

// BenchmarkPlansAndNotesDynamoDB reports DynamoDB requests and capacity units per
// API operation (docs/benchmarks.md, "Plans and notes").
func BenchmarkPlansAndNotesDynamoDB(b *testing.B) {
	e, meter := meteredEnv(b)
	const listed = 210
	for i := range listed {
		e.createPlan(e.ds.UUID, fmt.Sprintf("list-%04d", i), "Listed")
		e.createNote(e.acc, map[string]any{"customer_uuid": e.customer, "type": "note", "text": "listed"})
	}
	plan := e.createPlan(e.ds.UUID, "bench-plan", "Bench")
	note := e.createNote(e.acc, map[string]any{"customer_uuid": e.customer, "type": "call", "call_duration": 10})
	planParams := map[string]string{"plan_uuid": plan["uuid"].(string)}
	noteParams := map[string]string{"note_uuid": note["uuid"].(string)}
	_, firstPlans := e.do(e.acc, api.ListPlans, "GET", plansRoute, nil, nil, nil)
	dsCursor := mustCursor(e, e.ds.UUID)
	_, firstNotes := e.do(e.acc, api.ListCustomerNotes, "GET", notesRoute, nil, nil, nil)

	none := noQuery
	ops := []benchOp{
		{"CreatePlan", api.CreatePlan, "POST", plansRoute, nil, none, func(i int) any {
			return map[string]any{"data_source_uuid": e.ds2.UUID, "name": "N", "interval_count": 1, "interval_unit": "day",
				"external_id": fmt.Sprint("bench-", benchSeq.Add(1))}
		}, 201},
		{"GetPlan", api.GetPlan, "GET", planRoute, planParams, none, noBody, 200},
		{"UpdatePlan (name)", api.UpdatePlan, "PATCH", planRoute, planParams, none,
			func(i int) any { return map[string]any{"name": fmt.Sprint("Bench ", i)} }, 202},
		{"UpdatePlan (interval)", api.UpdatePlan, "PATCH", planRoute, planParams, none,
			func(i int) any { return map[string]any{"interval_count": 1 + i%5} }, 202},
		{"ListPlans first page of 200 (of 211)", api.ListPlans, "GET", plansRoute, nil, none, noBody, 200},
		{"ListPlans cursor page of 200", api.ListPlans, "GET", plansRoute, nil,
			func(int) url.Values { return url.Values{"cursor": {firstPlans["cursor"].(string)}} }, noBody, 200},
		{"ListPlans by data source, page of 200", api.ListPlans, "GET", plansRoute, nil, func(int) url.Values {
			return url.Values{"data_source_uuid": {e.ds.UUID}, "cursor": {dsCursor}}
		}, noBody, 200},
		{"CreateCustomerNote", api.CreateCustomerNote, "POST", notesRoute, nil, none, func(int) any {
			return map[string]any{"customer_uuid": e.customer, "type": "note", "text": "t", "author_email": e.member.Email}
		}, 201},
		{"CreateCustomerNote (no author_email: the first team member)", api.CreateCustomerNote, "POST", notesRoute, nil, none,
			func(int) any { return map[string]any{"customer_uuid": e.customer, "type": "note", "text": "t"} }, 201},
		{"GetCustomerNote", api.GetCustomerNote, "GET", noteRoute, noteParams, none, noBody, 200},
		{"UpdateCustomerNote", api.UpdateCustomerNote, "PATCH", noteRoute, noteParams, none,
			func(i int) any { return map[string]any{"text": fmt.Sprint("v", i)} }, 200},
		{"ListCustomerNotes cursor page of 200", api.ListCustomerNotes, "GET", notesRoute, nil,
			func(int) url.Values { return url.Values{"cursor": {firstNotes["cursor"].(string)}} }, noBody, 200},
		{"ListCustomerNotes by customer, page of 200", api.ListCustomerNotes, "GET", notesRoute, nil,
			func(int) url.Values { return url.Values{"customer_uuid": {e.customer}} }, noBody, 200},
	}
	runBenchOps(b, e, meter, ops)
	benchEach(b, e, meter, benchOp{"DeletePlan", api.DeletePlan, "DELETE", planRoute, nil, none, noBody, 204}, func() map[string]string {
		return map[string]string{"plan_uuid": e.createPlan(e.ds2.UUID, fmt.Sprint("del-", benchSeq.Add(1)), "D")["uuid"].(string)}
	})
	benchEach(b, e, meter, benchOp{"DeleteCustomerNote", api.DeleteCustomerNote, "DELETE", noteRoute, nil, none, noBody, 200}, func() map[string]string {
		return map[string]string{"note_uuid": e.createNote(e.acc, map[string]any{"customer_uuid": e.customer, "type": "note"})["uuid"].(string)}
	})
}

// mustCursor returns the cursor after the first 200 plans of a data source.
func mustCursor(e *resourceEnv, dsUUID string) string {
	_, body := e.do(e.acc, api.ListPlans, "GET", plansRoute, nil, url.Values{"data_source_uuid": {dsUUID}}, nil)
	return body["cursor"].(string)
}

func reportMeter(b *testing.B, m *ddbmeter.Meter) {
	s := m.Snapshot()
	b.ReportMetric(float64(s.TotalRequests())/float64(b.N), "ddb-requests/op")
	b.ReportMetric(s.TotalUnits()/float64(b.N), "ddb-CU/op")
	b.ReportMetric(s.ReadUnits/float64(b.N), "RCU/op")
	for name, n := range s.Requests {
		b.ReportMetric(float64(n)/float64(b.N), name+"/op")
	}
}
