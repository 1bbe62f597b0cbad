package billing_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

// BenchmarkPlansAndNotesDynamoDB reports DynamoDB requests and capacity units per
// API operation (docs/benchmarks.md, "Plans and notes").
func BenchmarkPlansAndNotesDynamoDB(b *testing.B) {
	e, meter := apitest.MeteredEnv(b)
	const listed = 210
	for i := range listed {
		e.CreatePlan(e.DS.UUID, fmt.Sprintf("list-%04d", i), "Listed")
		e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "note", "text": "listed"})
	}
	plan := e.CreatePlan(e.DS.UUID, "bench-plan", "Bench")
	note := e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "call", "call_duration": 10})
	planParams := map[string]string{"plan_uuid": plan["uuid"].(string)}
	noteParams := map[string]string{"note_uuid": note["uuid"].(string)}
	_, firstPlans := e.Do(e.Acc, "ListPlans", nil, nil, nil)
	dsCursor := mustCursor(e, e.DS.UUID)
	_, firstNotes := e.Do(e.Acc, "ListCustomerNotes", nil, nil, nil)

	none := apitest.NoQuery
	ops := []apitest.BenchOp{
		{Name: "CreatePlan", Op: "CreatePlan", Params: nil, Query: none, Body: func(i int) any {
			return map[string]any{"data_source_uuid": e.DS2.UUID, "name": "N", "interval_count": 1, "interval_unit": "day",
				"external_id": fmt.Sprint("bench-", apitest.BenchSeq.Add(1))}
		}, Want: 201},
		{Name: "GetPlan", Op: "GetPlan", Params: planParams, Query: none, Body: apitest.NoBody, Want: 200},
		{Name: "UpdatePlan (name)", Op: "UpdatePlan", Params: planParams, Query: none,
			Body: func(i int) any { return map[string]any{"name": fmt.Sprint("Bench ", i)} }, Want: 202},
		{Name: "UpdatePlan (interval)", Op: "UpdatePlan", Params: planParams, Query: none,
			Body: func(i int) any { return map[string]any{"interval_count": 1 + i%5} }, Want: 202},
		{Name: "ListPlans first page of 200 (of 211)", Op: "ListPlans", Params: nil, Query: none, Body: apitest.NoBody, Want: 200},
		{Name: "ListPlans cursor page of 200", Op: "ListPlans", Params: nil,
			Query: func(int) url.Values { return url.Values{"cursor": {firstPlans["cursor"].(string)}} }, Body: apitest.NoBody, Want: 200},
		{Name: "ListPlans by data source, page of 200", Op: "ListPlans", Params: nil, Query: func(int) url.Values {
			return url.Values{"data_source_uuid": {e.DS.UUID}, "cursor": {dsCursor}}
		}, Body: apitest.NoBody, Want: 200},
		{Name: "CreateCustomerNote", Op: "CreateCustomerNote", Params: nil, Query: none, Body: func(int) any {
			return map[string]any{"customer_uuid": e.Customer, "type": "note", "text": "t", "author_email": e.Member.Email}
		}, Want: 201},
		{Name: "CreateCustomerNote (no author_email: the first team member)", Op: "CreateCustomerNote", Params: nil, Query: none,
			Body: func(int) any { return map[string]any{"customer_uuid": e.Customer, "type": "note", "text": "t"} }, Want: 201},
		{Name: "GetCustomerNote", Op: "GetCustomerNote", Params: noteParams, Query: none, Body: apitest.NoBody, Want: 200},
		{Name: "UpdateCustomerNote", Op: "UpdateCustomerNote", Params: noteParams, Query: none,
			Body: func(i int) any { return map[string]any{"text": fmt.Sprint("v", i)} }, Want: 200},
		{Name: "ListCustomerNotes cursor page of 200", Op: "ListCustomerNotes", Params: nil,
			Query: func(int) url.Values { return url.Values{"cursor": {firstNotes["cursor"].(string)}} }, Body: apitest.NoBody, Want: 200},
		{Name: "ListCustomerNotes by customer, page of 200", Op: "ListCustomerNotes", Params: nil,
			Query: func(int) url.Values { return url.Values{"customer_uuid": {e.Customer}} }, Body: apitest.NoBody, Want: 200},
	}
	apitest.RunBenchOps(b, e, meter, ops)
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeletePlan", Op: "DeletePlan", Params: nil, Query: none, Body: apitest.NoBody, Want: 204}, func() map[string]string {
		return map[string]string{"plan_uuid": e.CreatePlan(e.DS2.UUID, fmt.Sprint("del-", apitest.BenchSeq.Add(1)), "D")["uuid"].(string)}
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeleteCustomerNote", Op: "DeleteCustomerNote", Params: nil, Query: none, Body: apitest.NoBody, Want: 200}, func() map[string]string {
		return map[string]string{"note_uuid": e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "note"})["uuid"].(string)}
	})
}

// mustCursor returns the cursor after the first 200 plans of a data source.
func mustCursor(e *apitest.ResourceEnv, dsUUID string) string {
	_, body := e.Do(e.Acc, "ListPlans", nil, url.Values{"data_source_uuid": {dsUUID}}, nil)
	return body["cursor"].(string)
}
