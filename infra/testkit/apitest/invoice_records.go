package apitest

// Plan creates a monthly plan of the fixture's data source and returns its uuid.
func (b *Billing) Plan(ext string) string {
	b.t.Helper()
	status, body := b.Call("CreatePlan", nil, nil, map[string]any{"data_source_uuid": b.F.DS.UUID,
		"name": ext, "external_id": ext, "interval_count": 1, "interval_unit": "month"})
	if status != 201 {
		b.t.Fatalf("plan: %d %v", status, body)
	}
	return body["uuid"].(string)
}
