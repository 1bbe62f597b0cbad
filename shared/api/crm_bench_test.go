package api_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/shared/api"
)

// BenchmarkCRMDynamoDB reports DynamoDB requests and capacity units per operation of
// notes (/v1/notes), opportunities, tasks and plan groups, with 210 of each in the
// account so list pages are full (docs/benchmarks.md, "CRM records and plan groups").
func BenchmarkCRMDynamoDB(b *testing.B) {
	e, meter := meteredEnv(b)
	contact := e.createContact(map[string]any{"customer_uuid": e.customer, "data_source_uuid": e.ds.UUID, "email": "c@example.com"})
	byContact := map[string]any{"associated_object": "contact", "method": "uuid", "value": contact["uuid"]}
	oppBody := func(int) any {
		return map[string]any{"customer_uuid": e.customer, "owner": e.member.Email, "pipeline": "New Business",
			"pipeline_stage": "Discovery", "estimated_close_date": "2025-03-30", "currency": "USD", "amount_in_cents": 1000,
			"custom": []any{map[string]any{"key": "seats", "value": 3}}}
	}
	taskBody := func(int) any {
		return map[string]any{"customer_uuid": e.customer, "task_details": "Call", "assignee": e.member.Email, "due_date": "2025-04-30"}
	}
	noteBody := func(int) any { return map[string]any{"customer_uuid": e.customer, "type": "note", "text": "n"} }
	var plans []string
	for i := range 3 {
		plans = append(plans, e.createPlan(e.ds.UUID, fmt.Sprint("grouped-", i), "Grouped")["uuid"].(string))
	}
	groupBody := func(int) any { return map[string]any{"name": "Group", "plans": plans} }
	const listed = 210
	var opp, task, note, group map[string]any
	for range listed {
		opp = e.create(api.CreateOpportunity, opportunitiesRoute, oppBody(0).(map[string]any))
		task = e.create(api.CreateTask, tasksRoute, taskBody(0).(map[string]any))
		note = e.create(api.CreateNote, entityNotesRoute, noteBody(0).(map[string]any))
		_, group = e.do(e.acc, api.CreatePlanGroup, "POST", planGroupsRoute, nil, nil, groupBody(0))
	}
	oppP := map[string]string{"opportunity_uuid": opp["uuid"].(string)}
	taskP := map[string]string{"task_uuid": task["task_uuid"].(string)}
	noteP := map[string]string{"note_uuid": note["uuid"].(string)}
	groupP := map[string]string{"plan_group_uuid": group["uuid"].(string)}
	_, firstGroups := e.do(e.acc, api.ListPlanGroups, "GET", planGroupsRoute, nil, nil, nil)
	q := func(kv ...string) func(int) url.Values { return func(int) url.Values { return query(kv...) } }
	// A customer merged from two data source customers, for the unmerge request.
	merged, err := e.d.Store.GetCustomer(e.ctx, e.acc, e.newCustomer(e.acc, e.ds))
	if err != nil {
		b.Fatal(err)
	}
	next := merged
	next.DataSourceUUIDs, next.ExternalIDs = append(next.DataSourceUUIDs, e.ds2.UUID), append(next.ExternalIDs, "merged")
	if err := e.d.Store.SaveCustomer(e.ctx, merged, next); err != nil {
		b.Fatal(err)
	}
	runBenchOps(b, e, meter, []benchOp{
		{"CreateNote (customer)", api.CreateNote, "POST", entityNotesRoute, nil, noQuery, noteBody, 201},
		{"CreateNote (contact)", api.CreateNote, "POST", entityNotesRoute, nil, noQuery, func(int) any {
			return map[string]any{"associated_object_identifier": byContact, "type": "call", "author_email": e.member.Email}
		}, 201},
		{"GetNote", api.GetNote, "GET", entityNoteRoute, noteP, noQuery, noBody, 200},
		{"UpdateNote", api.UpdateNote, "PATCH", entityNoteRoute, noteP, noQuery, func(i int) any { return map[string]any{"text": fmt.Sprint(i)} }, 200},
		{"ListNotes by customer, page of 200", api.ListNotes, "GET", entityNotesRoute, nil, q("customer_uuid", e.customer), noBody, 200},
		{"ListNotes by contact", api.ListNotes, "GET", entityNotesRoute, nil, q("contact_uuid", contact["uuid"].(string)), noBody, 200},
		{"CreateOpportunity", api.CreateOpportunity, "POST", opportunitiesRoute, nil, noQuery, oppBody, 201},
		{"GetOpportunity", api.GetOpportunity, "GET", opportunityRoute, oppP, noQuery, noBody, 200},
		{"UpdateOpportunity (owner)", api.UpdateOpportunity, "PATCH", opportunityRoute, oppP, noQuery, func(i int) any {
			return map[string]any{"owner": e.member.Email, "win_likelihood": i % 100}
		}, 200},
		{"ListOpportunities, page of 200", api.ListOpportunities, "GET", opportunitiesRoute, nil, noQuery, noBody, 200},
		{"ListOpportunities by customer and stage", api.ListOpportunities, "GET", opportunitiesRoute, nil,
			q("customer_uuid", e.customer, "pipeline_stage", "Discovery"), noBody, 200},
		{"CreateTask", api.CreateTask, "POST", tasksRoute, nil, noQuery, taskBody, 201},
		{"CreateTask (contact)", api.CreateTask, "POST", tasksRoute, nil, noQuery, func(int) any {
			return map[string]any{"associated_object_identifier": byContact, "task_details": "Call", "assignee": e.member.Email, "due_date": "2025-04-30"}
		}, 201},
		{"GetTask", api.GetTask, "GET", taskRoute, taskP, noQuery, noBody, 200},
		{"UpdateTask (completed_at)", api.UpdateTask, "PATCH", taskRoute, taskP, noQuery, func(int) any { return map[string]any{"completed_at": "2025-04-01"} }, 200},
		{"ListTasks, page of 200", api.ListTasks, "GET", tasksRoute, nil, noQuery, noBody, 200},
		{"ListTasks by contact", api.ListTasks, "GET", tasksRoute, nil, q("contact_uuid", contact["uuid"].(string)), noBody, 200},
		{"CreatePlanGroup (3 plans)", api.CreatePlanGroup, "POST", planGroupsRoute, nil, noQuery, groupBody, 200},
		{"GetPlanGroup", api.GetPlanGroup, "GET", planGroupRoute, groupP, noQuery, noBody, 200},
		{"UpdatePlanGroup (name)", api.UpdatePlanGroup, "PATCH", planGroupRoute, groupP, noQuery, func(int) any { return map[string]any{"name": "N"} }, 200},
		{"UpdatePlanGroup (3 plans)", api.UpdatePlanGroup, "PATCH", planGroupRoute, groupP, noQuery, groupBody, 200},
		{"ListPlanGroups first page of 200", api.ListPlanGroups, "GET", planGroupsRoute, nil, noQuery, noBody, 200},
		{"ListPlanGroups cursor page", api.ListPlanGroups, "GET", planGroupsRoute, nil, q("cursor", firstGroups["cursor"].(string)), noBody, 200},
		{"ListPlanGroups page=2 of 200", api.ListPlanGroups, "GET", planGroupsRoute, nil, q("page", "2"), noBody, 200},
		{"ListPlanGroupPlans (3 plans)", api.ListPlanGroupPlans, "GET", planGroupPlansRoute, groupP, noQuery, noBody, 200},
		{"UnmergeCustomers (the request; the jobs worker does the rest)", api.UnmergeCustomers, "POST", unmergesRoute, nil, noQuery,
			func(int) any {
				return map[string]any{"customer_uuid": merged.UUID, "data_source_uuid": e.ds2.UUID, "external_id": "merged"}
			}, 202},
	})
	benchEach(b, e, meter, benchOp{"DeleteNote", api.DeleteNote, "DELETE", entityNoteRoute, nil, noQuery, noBody, 200}, func() map[string]string {
		return map[string]string{"note_uuid": e.create(api.CreateNote, entityNotesRoute, noteBody(0).(map[string]any))["uuid"].(string)}
	})
	benchEach(b, e, meter, benchOp{"DeleteOpportunity", api.DeleteOpportunity, "DELETE", opportunityRoute, nil, noQuery, noBody, 200}, func() map[string]string {
		return map[string]string{"opportunity_uuid": e.create(api.CreateOpportunity, opportunitiesRoute, oppBody(0).(map[string]any))["uuid"].(string)}
	})
	benchEach(b, e, meter, benchOp{"DeleteTask", api.DeleteTask, "DELETE", taskRoute, nil, noQuery, noBody, 200}, func() map[string]string {
		return map[string]string{"task_uuid": e.create(api.CreateTask, tasksRoute, taskBody(0).(map[string]any))["task_uuid"].(string)}
	})
	benchEach(b, e, meter, benchOp{"DeletePlanGroup", api.DeletePlanGroup, "DELETE", planGroupRoute, nil, noQuery, noBody, 204}, func() map[string]string {
		_, g := e.do(e.acc, api.CreatePlanGroup, "POST", planGroupsRoute, nil, nil, groupBody(0))
		return map[string]string{"plan_group_uuid": g["uuid"].(string)}
	})
}

// BenchmarkActivitiesStartAfter reports what start-after adds to a page of
// /v1/activities: finding the activity by the time its uuid carries.
func BenchmarkActivitiesStartAfter(b *testing.B) {
	meter := ddbmeter.New()
	e := seededMetricsEnv(b, meter)
	_, all := e.get(api.ListActivities, "/v1/activities", e.acc, nil)
	first := field(all, "uuid")[0].(string)
	for _, c := range []struct {
		name string
		q    url.Values
	}{{"first page", query("per_page", "2")}, {"start-after", query("per_page", "2", "start-after", first)}} {
		b.Run(c.name, func(b *testing.B) {
			meter.Reset()
			for range b.N {
				if status, body := e.get(api.ListActivities, "/v1/activities", e.acc, c.q); status != 200 {
					b.Fatalf("%d %v", status, body)
				}
			}
			reportMeter(b, meter)
		})
	}
}
