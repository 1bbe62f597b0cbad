package apitest

// OpportunityBody is the recorded create request (Ruby client, 2024) for a customer.
func (e *ResourceEnv) OpportunityBody(customer string) map[string]any {
	return map[string]any{"customer_uuid": customer, "owner": e.Member.Email, "pipeline": "New Business",
		"pipeline_stage": "Discovery", "estimated_close_date": "2024-03-30", "currency": "USD", "amount_in_cents": 200000,
		"type": "one-time", "forecast_category": "best_case", "win_likelihood": 30,
		"custom": []any{map[string]any{"key": "from_campaign", "value": true}}}
}

// Create calls the operation named (a create, answering 201) with body as e's account.
func (e *ResourceEnv) Create(operation string, body map[string]any) map[string]any {
	e.t.Helper()
	status, got := e.Do(e.Acc, operation, nil, nil, body)
	if status != 201 {
		e.t.Fatalf("%s: %d %v", operation, status, got)
	}
	return got
}
