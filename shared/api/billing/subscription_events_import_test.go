package billing_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// TestImportFollowsRenamedEventExternalIDs: an import that sends an external id a
// PATCH gave to another event updates that event instead of adding a second one, and
// one that sends the id an event was created with, after the event was renamed, is
// reported failed without writing.
func TestImportFollowsRenamedEventExternalIDs(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Renamed events")
	ctx := context.Background()
	_, ds := apitest.ImportedCustomer(t, env, acc.ID)
	event := func(ext string, quantity int) map[string]any {
		return map[string]any{"customer_external_id": "c00", "event_type": "subscription_cancelled",
			"event_date": "2024-05-01", "effective_date": "2024-05-01", "subscription_external_id": "c00-s",
			"external_id": ext, "quantity": quantity}
	}
	created := event("first", 1)
	created["data_source_uuid"] = ds.UUID
	status, body := apitest.Do(t, env.API, "CreateSubscriptionEvent", apigwtest.Call{
		AccountID: acc.ID, Body: map[string]any{"subscription_event": created}})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, body)
	}
	id := int64(body["id"].(float64))
	if status, body := apitest.Do(t, env.API, "UpdateSubscriptionEvent", apigwtest.Call{
		AccountID: acc.ID, Body: map[string]any{"subscription_event": map[string]any{"id": id, "external_id": "renamed"}}}); status != http.StatusOK {
		t.Fatalf("rename: %d %v", status, body)
	}
	countEvents := func() int {
		status, body := apitest.Do(t, env.API, "ListSubscriptionEvents", apigwtest.Call{
			AccountID: acc.ID, Query: url.Values{"per_page": {"200"}}})
		if status != http.StatusOK {
			t.Fatalf("list: %d %v", status, body)
		}
		return len(body["subscription_events"].([]any))
	}
	before := countEvents()

	tests := []struct {
		name, externalID string
		wantStatus       string
		wantQuantity     float64
	}{
		{"the renamed id updates the renamed event", "renamed", "imported", 7},
		{"the creation id of a renamed event is refused", "first", "failed", 7},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			importID := "events-" + string(rune('a'+i))
			payload := map[string]any{"external_id": importID, "subscription_events": []any{event(tc.externalID, 7)}}
			if status, body := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{
				PathParams: map[string]string{"data_source_uuid": ds.UUID}, Body: payload, AccountID: acc.ID}); status != http.StatusOK {
				t.Fatalf("import: %d %v", status, body)
			}
			env.DrainImports(t)
			_, got := apitest.Do(t, env.API, "GetJsonImport", apigwtest.Call{
				PathParams: map[string]string{"data_source_uuid": ds.UUID, "import_id": importID}, AccountID: acc.ID})
			c00 := got["status_details"].(map[string]any)["c00"].(map[string]any)
			events := c00["subscription_events"].(map[string]any)
			if events["status"] != tc.wantStatus {
				t.Fatalf("status %v", c00)
			}
			if tc.wantStatus == "failed" && !strings.Contains(events["errors"].([]any)[0].(map[string]any)["message"].(string), "renamed") {
				t.Errorf("error %v", events)
			}
			stored, err := env.Deps.Store.GetSubscriptionEvent(ctx, acc.ID, id)
			if err != nil || stored.ExternalID != "renamed" || stored.Quantity == nil || float64(*stored.Quantity) != tc.wantQuantity {
				t.Fatalf("the renamed event: %+v %v", stored, err)
			}
			if n := countEvents(); n != before {
				t.Fatalf("%d such events, want %d (no duplicate)", n, before)
			}
		})
	}
}
