package crm_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/api/crm"
	"github.com/subsight/subsight/shared/api/customers"
	"github.com/subsight/subsight/shared/api/metricsapi"
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
		opp = e.Create(crm.CreateOpportunity, apitest.OpportunitiesRoute, oppBody(0).(map[string]any))
		task = e.Create(crm.CreateTask, apitest.TasksRoute, taskBody(0).(map[string]any))
		note = e.Create(crm.CreateNote, apitest.EntityNotesRoute, noteBody(0).(map[string]any))
		_, group = e.Do(e.Acc, billing.CreatePlanGroup, "POST", apitest.PlanGroupsRoute, nil, nil, groupBody(0))
	}
	oppP := map[string]string{"opportunity_uuid": opp["uuid"].(string)}
	taskP := map[string]string{"task_uuid": task["task_uuid"].(string)}
	noteP := map[string]string{"note_uuid": note["uuid"].(string)}
	groupP := map[string]string{"plan_group_uuid": group["uuid"].(string)}
	_, firstGroups := e.Do(e.Acc, billing.ListPlanGroups, "GET", apitest.PlanGroupsRoute, nil, nil, nil)
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
		{Name: "CreateNote (customer)", Ep: crm.CreateNote, Method: "POST", Route: apitest.EntityNotesRoute, Params: nil, Query: apitest.NoQuery, Body: noteBody, Want: 201},
		{Name: "CreateNote (contact)", Ep: crm.CreateNote, Method: "POST", Route: apitest.EntityNotesRoute, Params: nil, Query: apitest.NoQuery, Body: func(int) any {
			return map[string]any{"associated_object_identifier": byContact, "type": "call", "author_email": e.Member.Email}
		}, Want: 201},
		{Name: "GetNote", Ep: crm.GetNote, Method: "GET", Route: apitest.EntityNoteRoute, Params: noteP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UpdateNote", Ep: crm.UpdateNote, Method: "PATCH", Route: apitest.EntityNoteRoute, Params: noteP, Query: apitest.NoQuery, Body: func(i int) any { return map[string]any{"text": fmt.Sprint(i)} }, Want: 200},
		{Name: "ListNotes by customer, page of 200", Ep: crm.ListNotes, Method: "GET", Route: apitest.EntityNotesRoute, Params: nil, Query: q("customer_uuid", e.Customer), Body: apitest.NoBody, Want: 200},
		{Name: "ListNotes by contact", Ep: crm.ListNotes, Method: "GET", Route: apitest.EntityNotesRoute, Params: nil, Query: q("contact_uuid", contact["uuid"].(string)), Body: apitest.NoBody, Want: 200},
		{Name: "CreateOpportunity", Ep: crm.CreateOpportunity, Method: "POST", Route: apitest.OpportunitiesRoute, Params: nil, Query: apitest.NoQuery, Body: oppBody, Want: 201},
		{Name: "GetOpportunity", Ep: crm.GetOpportunity, Method: "GET", Route: apitest.OpportunityRoute, Params: oppP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UpdateOpportunity (owner)", Ep: crm.UpdateOpportunity, Method: "PATCH", Route: apitest.OpportunityRoute, Params: oppP, Query: apitest.NoQuery, Body: func(i int) any {
			return map[string]any{"owner": e.Member.Email, "win_likelihood": i % 100}
		}, Want: 200},
		{Name: "ListOpportunities, page of 200", Ep: crm.ListOpportunities, Method: "GET", Route: apitest.OpportunitiesRoute, Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "ListOpportunities by customer and stage", Ep: crm.ListOpportunities, Method: "GET", Route: apitest.OpportunitiesRoute, Params: nil,
			Query: q("customer_uuid", e.Customer, "pipeline_stage", "Discovery"), Body: apitest.NoBody, Want: 200},
		{Name: "CreateTask", Ep: crm.CreateTask, Method: "POST", Route: apitest.TasksRoute, Params: nil, Query: apitest.NoQuery, Body: taskBody, Want: 201},
		{Name: "CreateTask (contact)", Ep: crm.CreateTask, Method: "POST", Route: apitest.TasksRoute, Params: nil, Query: apitest.NoQuery, Body: func(int) any {
			return map[string]any{"associated_object_identifier": byContact, "task_details": "Call", "assignee": e.Member.Email, "due_date": "2025-04-30"}
		}, Want: 201},
		{Name: "GetTask", Ep: crm.GetTask, Method: "GET", Route: apitest.TaskRoute, Params: taskP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UpdateTask (completed_at)", Ep: crm.UpdateTask, Method: "PATCH", Route: apitest.TaskRoute, Params: taskP, Query: apitest.NoQuery, Body: func(int) any { return map[string]any{"completed_at": "2025-04-01"} }, Want: 200},
		{Name: "ListTasks, page of 200", Ep: crm.ListTasks, Method: "GET", Route: apitest.TasksRoute, Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "ListTasks by contact", Ep: crm.ListTasks, Method: "GET", Route: apitest.TasksRoute, Params: nil, Query: q("contact_uuid", contact["uuid"].(string)), Body: apitest.NoBody, Want: 200},
		{Name: "CreatePlanGroup (3 plans)", Ep: billing.CreatePlanGroup, Method: "POST", Route: apitest.PlanGroupsRoute, Params: nil, Query: apitest.NoQuery, Body: groupBody, Want: 200},
		{Name: "GetPlanGroup", Ep: billing.GetPlanGroup, Method: "GET", Route: apitest.PlanGroupRoute, Params: groupP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UpdatePlanGroup (name)", Ep: billing.UpdatePlanGroup, Method: "PATCH", Route: apitest.PlanGroupRoute, Params: groupP, Query: apitest.NoQuery, Body: func(int) any { return map[string]any{"name": "N"} }, Want: 200},
		{Name: "UpdatePlanGroup (3 plans)", Ep: billing.UpdatePlanGroup, Method: "PATCH", Route: apitest.PlanGroupRoute, Params: groupP, Query: apitest.NoQuery, Body: groupBody, Want: 200},
		{Name: "ListPlanGroups first page of 200", Ep: billing.ListPlanGroups, Method: "GET", Route: apitest.PlanGroupsRoute, Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "ListPlanGroups cursor page", Ep: billing.ListPlanGroups, Method: "GET", Route: apitest.PlanGroupsRoute, Params: nil, Query: q("cursor", firstGroups["cursor"].(string)), Body: apitest.NoBody, Want: 200},
		{Name: "ListPlanGroups page=2 of 200", Ep: billing.ListPlanGroups, Method: "GET", Route: apitest.PlanGroupsRoute, Params: nil, Query: q("page", "2"), Body: apitest.NoBody, Want: 200},
		{Name: "ListPlanGroupPlans (3 plans)", Ep: billing.ListPlanGroupPlans, Method: "GET", Route: apitest.PlanGroupPlansRoute, Params: groupP, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200},
		{Name: "UnmergeCustomers (the request; the jobs worker does the rest)", Ep: customers.UnmergeCustomers, Method: "POST", Route: apitest.UnmergesRoute, Params: nil, Query: apitest.NoQuery,
			Body: func(int) any {
				return map[string]any{"customer_uuid": merged.UUID, "data_source_uuid": e.DS2.UUID, "external_id": "merged"}
			}, Want: 202},
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeleteNote", Ep: crm.DeleteNote, Method: "DELETE", Route: apitest.EntityNoteRoute, Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200}, func() map[string]string {
		return map[string]string{"note_uuid": e.Create(crm.CreateNote, apitest.EntityNotesRoute, noteBody(0).(map[string]any))["uuid"].(string)}
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeleteOpportunity", Ep: crm.DeleteOpportunity, Method: "DELETE", Route: apitest.OpportunityRoute, Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200}, func() map[string]string {
		return map[string]string{"opportunity_uuid": e.Create(crm.CreateOpportunity, apitest.OpportunitiesRoute, oppBody(0).(map[string]any))["uuid"].(string)}
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeleteTask", Ep: crm.DeleteTask, Method: "DELETE", Route: apitest.TaskRoute, Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 200}, func() map[string]string {
		return map[string]string{"task_uuid": e.Create(crm.CreateTask, apitest.TasksRoute, taskBody(0).(map[string]any))["task_uuid"].(string)}
	})
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeletePlanGroup", Ep: billing.DeletePlanGroup, Method: "DELETE", Route: apitest.PlanGroupRoute, Params: nil, Query: apitest.NoQuery, Body: apitest.NoBody, Want: 204}, func() map[string]string {
		_, g := e.Do(e.Acc, billing.CreatePlanGroup, "POST", apitest.PlanGroupsRoute, nil, nil, groupBody(0))
		return map[string]string{"plan_group_uuid": g["uuid"].(string)}
	})
}

// BenchmarkActivitiesStartAfter reports what start-after adds to a page of
// /v1/activities: finding the activity by the time its uuid carries.
func BenchmarkActivitiesStartAfter(b *testing.B) {
	meter := ddbmeter.New()
	e := apitest.SeededMetricsEnv(b, meter)
	_, all := e.Get(metricsapi.ListActivities, "/v1/activities", e.Acc, nil)
	first := apitest.Field(all, "uuid")[0].(string)
	for _, c := range []struct {
		name string
		q    url.Values
	}{{"first page", apitest.Query("per_page", "2")}, {"start-after", apitest.Query("per_page", "2", "start-after", first)}} {
		b.Run(c.name, func(b *testing.B) {
			meter.Reset()
			for range b.N {
				if status, body := e.Get(metricsapi.ListActivities, "/v1/activities", e.Acc, c.q); status != 200 {
					b.Fatalf("%d %v", status, body)
				}
			}
			apitest.ReportMeter(b, meter)
		})
	}
}
