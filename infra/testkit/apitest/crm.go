package apitest

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
)

const (
	OpportunitiesRoute = "/v1/opportunities"
	OpportunityRoute   = "/v1/opportunities/{opportunity_uuid}"
	TasksRoute         = "/v1/tasks"
	TaskRoute          = "/v1/tasks/{task_uuid}"
	EntityNotesRoute   = "/v1/notes"
	EntityNoteRoute    = "/v1/notes/{note_uuid}"
)

// OpportunityBody is the recorded create request (Ruby client, 2024) for a customer.
func (e *ResourceEnv) OpportunityBody(customer string) map[string]any {
	return map[string]any{"customer_uuid": customer, "owner": e.Member.Email, "pipeline": "New Business",
		"pipeline_stage": "Discovery", "estimated_close_date": "2024-03-30", "currency": "USD", "amount_in_cents": 200000,
		"type": "one-time", "forecast_category": "best_case", "win_likelihood": 30,
		"custom": []any{map[string]any{"key": "from_campaign", "value": true}}}
}

func (e *ResourceEnv) Create(ep func(*api.Deps) apigw.Endpoint, route string, body map[string]any) map[string]any {
	e.t.Helper()
	status, got := e.Do(e.Acc, ep, "POST", route, nil, nil, body)
	if status != 201 {
		e.t.Fatalf("create %s: %d %v", route, status, got)
	}
	return got
}
