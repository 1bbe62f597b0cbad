package crm_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
)

// BenchmarkCRMDynamoDB reports DynamoDB requests and capacity units per operation of
// notes (/v1/notes), opportunities, tasks and plan groups, with 210 of each in the
// account so list pages are full (docs/benchmarks.md, "CRM records and plan groups").
func BenchmarkCRMDynamoDB(b *testing.B) {
	e, meter := apitest.MeteredEnv(b)
	contact := e.CreateContact(map[string]any{"customer_uuid": e.Customer, "data_source_uuid": e.DS.UUID, "email": "c@example.com"})
	byContact := map[string]any{"associated_object": "contact", "method": "uuid", "value": contact["uuid"]}
	oppBody := func(int) any {
		return map[string]any{"customer_uuid": e.Customer, "owner": e.Member.Email, "pipeline": "New Business",
			"pipeline_stage": "Discovery", "estimated_close_date": "2025-03-30", "currency": "USD", "amount_in_cents": 1000,
			"custom": []any{map[string]any{"key": "seats", "value": 3}}}
	}
	taskBody := func(int) any {
		return map[string]any{"customer_uuid": e.Customer, "task_details": "Call", "assignee": e.Member.Email, "due_date": "2025-04-30"}
	}
	noteBody := func(int) any { return map[string]any{"customer_uuid": e.Customer, "type": "note", "text": "n"} }
	var plans []string
	for i := range 3 {
		plans = append(plans, e.CreatePlan(e.DS.UUID, fmt.Sprint("grouped-", i), "Grouped")["uuid"].(string))
	}
	groupBody := func(int) any { return map[string]any{"name": "Group", "plans": plans} }
	const listed = 210
	var opp, task, note, group map[string]any
	for range listed {
		opp = e.Create("CreateOpportunity", oppBody(0).(map[string]any))
		task = e.Create("CreateTask", taskBody(0).(map[string]any))
		note = e.Create("CreateNote", noteBody(0).(map[string]any))
		_, group = e.Do(e.Acc, "CreatePlanGroup", nil, nil, groupBody(0))
	}
	oppP := map[string]string{"opportunity_uuid": opp["uuid"].(string)}
	taskP := map[string]string{"task_uuid": task["task_uuid"].(string)}
	noteP := map[string]string{"note_uuid": note["uuid"].(string)}
	groupP := map[string]string{"plan_group_uuid": group["uuid"].(string)}
	_, firstGroups := e.Do(e.Acc, "ListPlanGroups", nil, nil, nil)
	q := func(kv ...string) func(int) url.Values { return func(int) url.Values { return apitest.Query(kv...) } }
	// A customer merged from two data source customers, for the unmerge request.
	merged, err := e.D.Store.GetCustomer(e.Ctx, e.Acc, e.NewCustomer(e.Acc, e.DS))
	if err != nil {
		b.Fatal(err)
	}
	next := merged
	next.DataSourceUUIDs, next.ExternalIDs = append(next.DataSourceUUIDs, e.DS2.UUID), append(next.ExternalIDs, "merged")
	if err := e.D.Store.SaveCustomer(e.Ctx, merged, next); err != nil {
		b.Fatal(err)
	}
	apitest.RunBenchOps(b, e, meter, []apitest.BenchOp{
		{Name: "CreateNote (customer)", Op: "CreateNote", Params: nil, Query: apitest.NoQuery, Body: noteBody, Want: 201},
		{Name: "CreateNote (contact)", Op: "CreateNote", Params: nil, Query: apitest.NoQuery, Body: func(int) any {
			return map[string]any{"associated_object_identifier": byContact, "type": "call", "author_email": e.Member.Email}
		}, Want: 201},
		{Name: "GetNote", Op: "GetNote", Params: noteP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UpdateNote", Op: "UpdateNote", Params: noteP, Query: apitest.NoQuery, Body: func(i int) any { return map[string]any{"text": fmt.Sprint(i)} }, Want: 200},
		{Name: "ListNotes by customer, page of 200", Op: "ListNotes", Params: nil, Query: q("customer_uuid", e.Customer), Body: apitest.NoBody, Want: 200},
		{Name: "ListNotes by contact", Op: "ListNotes", Params: nil, Query: q("contact_uuid", contact["uuid"].(string)), Body: apitest.NoBody, Want: 200},
		{Name: "CreateOpportunity", Op: "CreateOpportunity", Params: nil, Query: apitest.NoQuery, Body: oppBody, Want: 201},
		{Name: "GetOpportunity", Op: "GetOpportunity", Params: oppP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UpdateOpportunity (owner)", Op: "UpdateOpportunity", Params: oppP, Query: apitest.NoQuery, Body: func(i int) any {
			return map[string]any{"owner": e.Member.Email, "win_likelihood": i % 100}
		}, Want: 200},
		{Name: "ListOpportunities, page of 200", Op: "ListOpportunities", Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "ListOpportunities by customer and stage", Op: "ListOpportunities", Params: nil,
			Query: q("customer_uuid", e.Customer, "pipeline_stage", "Discovery"), Body: apitest.NoBody, Want: 200},
		{Name: "CreateTask", Op: "CreateTask", Params: nil, Query: apitest.NoQuery, Body: taskBody, Want: 201},
		{Name: "CreateTask (contact)", Op: "CreateTask", Params: nil, Query: apitest.NoQuery, Body: func(int) any {
			return map[string]any{"associated_object_identifier": byContact, "task_details": "Call", "assignee": e.Member.Email, "due_date": "2025-04-30"}
		}, Want: 201},
		{Name: "GetTask", Op: "GetTask", Params: taskP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UpdateTask (completed_at)", Op: "UpdateTask", Params: taskP, Query: apitest.NoQuery, Body: func(int) any { return map[string]any{"completed_at": "2025-04-01"} }, Want: 200},
		{Name: "ListTasks, page of 200", Op: "ListTasks", Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "ListTasks by contact", Op: "ListTasks", Params: nil, Query: q("contact_uuid", contact["uuid"].(string)), Body: apitest.NoBody, Want: 200},
		{Name: "CreatePlanGroup (3 plans)", Op: "CreatePlanGroup", Params: nil, Query: apitest.NoQuery, Body: groupBody, Want: 200},
		{Name: "GetPlanGroup", Op: "GetPlanGroup", Params: groupP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UpdatePlanGroup (name)", Op: "UpdatePlanGroup", Params: groupP, Query: apitest.NoQuery, Body: func(int) any { return map[string]any{"name": "N"} }, Want: 200},
		{Name: "UpdatePlanGroup (3 plans)", Op: "UpdatePlanGroup", Params: groupP, Query: apitest.NoQuery, Body: groupBody, Want: 200},
		{Name: "ListPlanGroups first page of 200", Op: "ListPlanGroups", Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "ListPlanGroups cursor page", Op: "ListPlanGroups", Params: nil, Query: q("cursor", firstGroups["cursor"].(string)), Body: apitest.NoBody, Want: 200},
		{Name: "ListPlanGroups page=2 of 200", Op: "ListPlanGroups", Params: nil, Query: q("page", "2"), Body: apitest.NoBody, Want: 200},
		{Name: "ListPlanGroupPlans (3 plans)", Op: "ListPlanGroupPlans", Params: groupP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UnmergeCustomers (the request; the jobs worker does the rest)", Op: "UnmergeCustomers", Params: nil, Query: apitest.NoQuery,
			Body: func(int) any {
				return map[string]any{"customer_uuid": merged.UUID, "data_source_uuid": e.DS2.UUID, "external_id": "merged"}
			}, Want: 202},
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeleteNote", Op: "DeleteNote", Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200}, func() map[string]string {
		return map[string]string{"note_uuid": e.Create("CreateNote", noteBody(0).(map[string]any))["uuid"].(string)}
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeleteOpportunity", Op: "DeleteOpportunity", Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200}, func() map[string]string {
		return map[string]string{"opportunity_uuid": e.Create("CreateOpportunity", oppBody(0).(map[string]any))["uuid"].(string)}
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeleteTask", Op: "DeleteTask", Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200}, func() map[string]string {
		return map[string]string{"task_uuid": e.Create("CreateTask", taskBody(0).(map[string]any))["task_uuid"].(string)}
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeletePlanGroup", Op: "DeletePlanGroup", Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 204}, func() map[string]string {
		_, g := e.Do(e.Acc, "CreatePlanGroup", nil, nil, groupBody(0))
		return map[string]string{"plan_group_uuid": g["uuid"].(string)}
	})
}

// BenchmarkActivitiesStartAfter reports what start-after adds to a page of
// /v1/activities: finding the activity by the time its uuid carries.
func BenchmarkActivitiesStartAfter(b *testing.B) {
	meter := ddbmeter.New()
	e := apitest.SeededMetricsEnv(b, meter)
	_, all := e.Get("ListActivities", e.Acc, nil)
	first := apitest.Field(all, "uuid")[0].(string)
	for _, c := range []struct {
		name string
		q    url.Values
	}{{"first page", apitest.Query("per_page", "2")}, {"start-after", apitest.Query("per_page", "2", "start-after", first)}} {
		b.Run(c.name, func(b *testing.B) {
			meter.Reset()
			for range b.N {
				if status, body := e.Get("ListActivities", e.Acc, c.q); status != 200 {
					b.Fatalf("%d %v", status, body)
				}
			}
			apitest.ReportMeter(b, meter)
		})
	}
}
