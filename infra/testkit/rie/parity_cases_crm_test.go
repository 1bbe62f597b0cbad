//go:build linux

package rie

import (
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
)

// crmFixture is the fixture's part for the CRM records, plan groups and the unmerge:
// an opportunity and a task to read and change and one of each to delete, a note made
// for a contact, two plan groups, and a customer merged from two (cus-una, cus-unb).
type crmFixture struct {
	opp, oppDel, task, taskDel string
	contactNote, noteDel       string
	planGroup, planGroupDel    string
	merged                     string
}

// newCRMFixture makes them through the handlers; the merge is run by the jobs drain of
// newFixture.
func newCRMFixture(f *fixture) *crmFixture {
	f.t.Helper()
	c := &crmFixture{}
	opp := func() string {
		return f.create("CreateOpportunityFunction", nil, map[string]any{"customer_uuid": f.cust, "owner": testenv.Member.Email,
			"pipeline": "New Business", "pipeline_stage": "Discovery", "estimated_close_date": "2025-06-30", "currency": "USD",
			"amount_in_cents": 50000})["uuid"].(string)
	}
	c.opp, c.oppDel = opp(), opp()
	task := func() string {
		return f.create("CreateTaskFunction", nil, map[string]any{"customer_uuid": f.cust, "task_details": "Renewal call",
			"assignee": testenv.Member.Email, "due_date": "2025-06-01"})["task_uuid"].(string)
	}
	c.task, c.taskDel = task(), task()
	note := func() string {
		return f.create("CreateNoteFunction", nil, map[string]any{"type": "note", "text": "about a contact",
			"associated_object_identifier": map[string]any{"associated_object": "contact", "method": "uuid", "value": f.contact}})["uuid"].(string)
	}
	c.contactNote, c.noteDel = note(), note()
	group := func(name string) string {
		return f.call(200, "CreatePlanGroupFunction", nil, nil, map[string]any{"name": name, "plans": []string{f.plan, f.planUpd}})["uuid"].(string)
	}
	c.planGroup, c.planGroupDel = group("Parity group"), group("Doomed group")
	c.merged = f.customer("cus-una", "Unmerge A", "una@parity.example")
	f.customer("cus-unb", "Unmerge B", "unb@parity.example")
	f.call(202, "MergeCustomersFunction", nil, nil, map[string]any{
		"from": map[string]any{"data_source_uuid": f.ds, "external_id": "cus-unb"}, "into": map[string]any{"customer_uuid": c.merged}})
	return c
}

func init() {
	for id, c := range crmParityCases {
		if _, dup := parityCases[id]; dup {
			panic("parity case registered twice: " + id)
		}
		parityCases[id] = c
	}
}

var crmParityCases = map[string]parityCase{
	// ------------------------------------------------------------ unmerge
	"UnmergeCustomersFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"customer_uuid": f.crm.merged, "data_source_uuid": f.ds, "external_id": "cus-unb",
			"move_to_new_customer": []string{"notes"}}, Status: 202, Check: func(t *testing.T, f *fixture, b map[string]any) {
			f.runJobs(t)
			got := list(t, f.get(t, "ListCustomersFunction", nil, url.Values{"external_id": {"cus-unb"}}), "entries")
			if len(got) != 1 || got[0]["uuid"] == f.crm.merged {
				t.Errorf("the unmerged customer: %v", got)
			}
			has(t, "customer unmerged from", f.get(t, "GetCustomerFunction", map[string]string{"customer_uuid": f.crm.merged}, nil),
				map[string]any{"external_ids": "[cus-una]"})
		}}
	}},

	// ------------------------------------------------------------ notes
	"CreateNoteFunction": {api: func(f *fixture) apiCase {
		// With its author, whom the note reads among the team members (a note without one
		// is the first member's: CreateCustomerNoteFunction's case).
		return apiCase{Body: map[string]any{"customer_uuid": f.custUpd, "type": "call", "text": "entity call", "call_duration": 30,
			"author_email": testenv.Member.Email},
			Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored note", f.get(t, "GetNoteFunction", map[string]string{"note_uuid": b["uuid"].(string)}, nil),
					map[string]any{"type": "call", "text": "entity call", "call_duration": 30, "customer_uuid": f.custUpd})
			}}
	}},
	"ListNotesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"contact_uuid": {f.contact}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "entries"), "uuid", f.crm.contactNote) || anyWith(list(t, b, "entries"), "uuid", f.note) {
				t.Errorf("the contact's notes: %v", b)
			}
		}}
	}},
	"GetNoteFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"note_uuid": f.crm.contactNote}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "note", b, map[string]any{"uuid": f.crm.contactNote, "customer_uuid": f.cust, "associated_object": "contact",
				"associated_object_uuid": f.contact})
		}}
	}},
	"UpdateNoteFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"note_uuid": f.crm.contactNote}, Body: map[string]any{"text": "edited entity"}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored note", f.get(t, "GetCustomerNoteFunction", map[string]string{"note_uuid": f.crm.contactNote}, nil),
					map[string]any{"text": "edited entity"})
			}}
	}},
	"DeleteNoteFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"note_uuid": f.crm.noteDel}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetNoteFunction", map[string]string{"note_uuid": f.crm.noteDel}); s != 404 {
				t.Errorf("deleted note: GET answers %d", s)
			}
		}}
	}},

	// ------------------------------------------------------------ opportunities
	"CreateOpportunityFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"customer_uuid": f.custUpd, "owner": testenv.Member.Email, "pipeline": "Renewals",
			"pipeline_stage": "Proposal", "estimated_close_date": "2025-09-30", "currency": "EUR", "amount_in_cents": 1234,
			"custom": []map[string]any{{"key": "seats", "value": 3}}}, Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "stored opportunity", f.get(t, "GetOpportunityFunction", map[string]string{"opportunity_uuid": b["uuid"].(string)}, nil),
				map[string]any{"pipeline": "Renewals", "currency": "EUR", "amount_in_cents": 1234, "custom": "map[seats:3]"})
		}}
	}},
	"ListOpportunitiesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"customer_uuid": {f.cust}, "pipeline_stage": {"Discovery"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if !anyWith(list(t, b, "entries"), "uuid", f.crm.opp) {
					t.Errorf("opportunities: %v", b)
				}
			}}
	}},
	"GetOpportunityFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"opportunity_uuid": f.crm.opp}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "opportunity", b, map[string]any{"uuid": f.crm.opp, "customer_uuid": f.cust, "owner": testenv.Member.Email})
		}}
	}},
	"UpdateOpportunityFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"opportunity_uuid": f.crm.opp}, Body: map[string]any{"win_likelihood": 75}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored opportunity", f.get(t, "GetOpportunityFunction", map[string]string{"opportunity_uuid": f.crm.opp}, nil),
					map[string]any{"win_likelihood": 75})
			}}
	}},
	"DeleteOpportunityFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"opportunity_uuid": f.crm.oppDel}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetOpportunityFunction", map[string]string{"opportunity_uuid": f.crm.oppDel}); s != 404 {
				t.Errorf("deleted opportunity: GET answers %d", s)
			}
		}}
	}},

	// ------------------------------------------------------------ tasks
	"CreateTaskFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"task_details": "Send the contract", "assignee": testenv.Member.Email, "due_date": "2025-07-01",
			"associated_object_identifier": map[string]any{"associated_object": "contact", "method": "uuid", "value": f.contact}},
			Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored task", f.get(t, "GetTaskFunction", map[string]string{"task_uuid": b["task_uuid"].(string)}, nil),
					map[string]any{"task_details": "Send the contract", "customer_uuid": f.cust, "associated_object_uuid": f.contact})
			}}
	}},
	"ListTasksFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"customer_uuid": {f.cust}, "completed": {"false"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if !anyWith(list(t, b, "entries"), "task_uuid", f.crm.task) {
					t.Errorf("tasks: %v", b)
				}
			}}
	}},
	"GetTaskFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"task_uuid": f.crm.task}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "task", b, map[string]any{"task_uuid": f.crm.task, "due_date": "2025-06-01T00:00:00.000Z", "completed_at": "<nil>"})
		}}
	}},
	"UpdateTaskFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"task_uuid": f.crm.task}, Body: map[string]any{"completed_at": "2025-05-30T12:00:00Z"},
			Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored task", f.get(t, "GetTaskFunction", map[string]string{"task_uuid": f.crm.task}, nil),
					map[string]any{"completed_at": "2025-05-30T12:00:00.000Z"})
			}}
	}},
	"DeleteTaskFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"task_uuid": f.crm.taskDel}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetTaskFunction", map[string]string{"task_uuid": f.crm.taskDel}); s != 404 {
				t.Errorf("deleted task: GET answers %d", s)
			}
		}}
	}},

	// ------------------------------------------------------------ plan groups
	"CreatePlanGroupFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"name": "Created group", "plans": []string{f.plan}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored group", f.get(t, "GetPlanGroupFunction", map[string]string{"plan_group_uuid": b["uuid"].(string)}, nil),
					map[string]any{"name": "Created group", "plans_count": 1})
			}}
	}},
	"ListPlanGroupsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "plan_groups"), "uuid", f.crm.planGroup) || b["current_page"] == nil {
				t.Errorf("plan groups: %v", b)
			}
		}}
	}},
	"GetPlanGroupFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"plan_group_uuid": f.crm.planGroup}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "plan group", b, map[string]any{"uuid": f.crm.planGroup, "name": "Parity group", "plans_count": 2})
		}}
	}},
	"UpdatePlanGroupFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"plan_group_uuid": f.crm.planGroup}, Body: map[string]any{"plans": []string{f.plan}},
			Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored group", f.get(t, "GetPlanGroupFunction", map[string]string{"plan_group_uuid": f.crm.planGroup}, nil),
					map[string]any{"plans_count": 1})
			}}
	}},
	"DeletePlanGroupFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"plan_group_uuid": f.crm.planGroupDel}, Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetPlanGroupFunction", map[string]string{"plan_group_uuid": f.crm.planGroupDel}); s != 404 {
				t.Errorf("deleted group: GET answers %d", s)
			}
		}}
	}},
	"ListPlanGroupPlansFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"plan_group_uuid": f.crm.planGroup}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if got := list(t, b, "plans"); len(got) == 0 || got[0]["uuid"] != f.plan {
					t.Errorf("group plans: %v", b)
				}
			}}
	}},
}
