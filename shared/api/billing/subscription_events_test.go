package billing_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

func TestSubscriptionEventsCRUD(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Events")
	other := env.NewAccount(t, "Other")
	ctx := context.Background()
	cus, ds := apitest.ImportedCustomer(t, env, acc.ID)
	event := func(ext string, extra map[string]any) map[string]any {
		e := map[string]any{"data_source_uuid": ds.UUID, "customer_external_id": "c00", "event_type": "subscription_start",
			"event_date": "2024-01-05", "effective_date": "2024-01-05", "subscription_external_id": "c00-s",
			"plan_external_id": "p1", "currency": "USD", "amount_in_cents": 1000, "external_id": ext}
		for k, v := range extra {
			e[k] = v
		}
		return map[string]any{"subscription_event": e}
	}
	createCases := []struct {
		name    string
		body    any
		account string
		status  int
		want    string
	}{
		{"created", event("ev-1", nil), acc.ID, 201, `"external_id":"ev-1"`},
		{"retried create returns the same event", event("ev-1", nil), acc.ID, 201, `"external_id":"ev-1"`},
		{"external id taken by another event", event("ev-1", map[string]any{"amount_in_cents": 5}), acc.ID, 422, `"param":"external_id"`},
		{"second event", event("ev-2", map[string]any{"event_type": "subscription_cancelled", "event_date": "2024-02-01", "effective_date": "2024-02-01"}), acc.ID, 201, `"event_type":"subscription_cancelled"`},
		{"not wrapped", map[string]any{"external_id": "x"}, acc.ID, 400, `"subscription_event"`},
		{"missing data source", map[string]any{"subscription_event": map[string]any{"external_id": "x"}}, acc.ID, 400, `"data_source_uuid"`},
		{"invalid event type", event("ev-3", map[string]any{"event_type": "nope"}), acc.ID, 422, `event_type`},
		{"unknown customer", event("ev-3", map[string]any{"customer_external_id": "ghost"}), acc.ID, 422, `"param":"customer_external_id"`},
		{"unknown plan", event("ev-3", map[string]any{"plan_external_id": "ghost"}), acc.ID, 422, `"param":"plan_external_id"`},
		{"other account's data source", event("ev-3", nil), other.ID, 404, `Data source not found`},
	}
	for _, tc := range createCases {
		t.Run("create/"+tc.name, func(t *testing.T) {
			resp := apitest.Raw(t, env.API, "CreateSubscriptionEvent", apigwtest.Call{Body: tc.body, AccountID: tc.account})
			if resp.StatusCode != tc.status || !strings.Contains(resp.Body, tc.want) {
				t.Fatalf("%d %s", resp.StatusCode, resp.Body)
			}
		})
	}
	// The events are in the customer's index (imported one + two created) for recompute.
	if idx, err := env.Deps.Store.GetBillingIndex(ctx, acc.ID, cus); err != nil || len(idx.Events) != 3 {
		t.Fatalf("index events %v %v", idx.Events, err)
	}
	// List: filters, pagination with meta on the first page only, tampered cursor.
	get := func(q url.Values, account string) (int, map[string]any) {
		return apitest.Do(t, env.API, "ListSubscriptionEvents", apigwtest.Call{Query: q, AccountID: account})
	}
	listCases := []struct {
		name  string
		query url.Values
		count int
	}{
		{"all", nil, 3},
		{"by external id", url.Values{"external_id": {"ev-2"}}, 1},
		{"by type", url.Values{"event_type": {"subscription_cancelled"}}, 2},
		{"by customer uuid and data source", url.Values{"customer_uuid": {cus}, "data_source_uuid": {ds.UUID}}, 3},
		{"by effective date", url.Values{"effective_date": {"2024-01-05T00:00:00Z"}}, 1},
		{"by plan", url.Values{"plan_external_id": {"p1"}}, 2},
		{"no match", url.Values{"customer_external_id": {"ghost"}}, 0},
	}
	for _, tc := range listCases {
		t.Run("list/"+tc.name, func(t *testing.T) {
			status, body := get(tc.query, acc.ID)
			if status != 200 || len(body["subscription_events"].([]any)) != tc.count {
				t.Fatalf("%d %v", status, body)
			}
			meta := body["meta"].(map[string]any)
			if tc.count == 0 && (meta["page"] != float64(0) || meta["total_pages"] != float64(0)) {
				t.Fatalf("empty meta %v", meta)
			}
		})
	}
	if _, body := get(nil, other.ID); len(body["subscription_events"].([]any)) != 0 {
		t.Fatalf("other account sees events: %v", body)
	}
	_, p1 := get(url.Values{"per_page": {"2"}}, acc.ID)
	meta := p1["meta"].(map[string]any)
	if p1["has_more"] != true || meta["total_pages"] != float64(2) || meta["page"] != float64(1) {
		t.Fatalf("page 1 %v", p1)
	}
	_, p2 := get(url.Values{"per_page": {"2"}, "cursor": {p1["cursor"].(string)}}, acc.ID)
	if p2["has_more"] != false || len(p2["subscription_events"].([]any)) != 1 || p2["meta"] != nil {
		t.Fatalf("page 2 %v", p2)
	}
	if status, _ := get(url.Values{"cursor": {p1["cursor"].(string) + "x"}}, acc.ID); status != 400 {
		t.Fatalf("tampered cursor: %d", status)
	}
	_, one := get(url.Values{"external_id": {"ev-1"}}, acc.ID)
	id := one["subscription_events"].([]any)[0].(map[string]any)["id"].(float64)
	// Update by id and by data source + external id.
	updateCases := []struct {
		name   string
		body   map[string]any
		status int
		want   string
	}{
		{"by id", map[string]any{"id": id, "amount_in_cents": 2500}, 200, `"amount_in_cents":2500`},
		{"by external id", map[string]any{"data_source_uuid": ds.UUID, "external_id": "ev-1", "quantity": 3}, 200, `"quantity":3`},
		{"rename external id", map[string]any{"id": id, "external_id": "ev-1b"}, 200, `"external_id":"ev-1b"`},
		{"found by its new external id", map[string]any{"data_source_uuid": ds.UUID, "external_id": "ev-1b", "quantity": 4}, 200, `"quantity":4`},
		{"invalid value", map[string]any{"id": id, "event_type": "nope"}, 422, `event_type`},
		{"unknown id", map[string]any{"id": 12345, "quantity": 2}, 404, `Subscription event not found`},
		{"no identifier", map[string]any{"quantity": 2}, 400, `"id"`},
	}
	for _, tc := range updateCases {
		t.Run("update/"+tc.name, func(t *testing.T) {
			resp := apitest.Raw(t, env.API, "UpdateSubscriptionEvent", apigwtest.Call{
				Body: map[string]any{"subscription_event": tc.body}, AccountID: acc.ID})
			if resp.StatusCode != tc.status || !strings.Contains(resp.Body, tc.want) {
				t.Fatalf("%d %s", resp.StatusCode, resp.Body)
			}
		})
	}
	if resp := apitest.Raw(t, env.API, "UpdateSubscriptionEvent", apigwtest.Call{
		Body: map[string]any{"subscription_event": map[string]any{"id": id, "quantity": 9}}, AccountID: other.ID}); resp.StatusCode != 404 {
		t.Fatalf("other account update: %d %s", resp.StatusCode, resp.Body)
	}
	// Delete: JSON body, then the query-string form; a second delete is a 404.
	deleteCases := []struct {
		name   string
		call   apigwtest.Call
		status int
	}{
		{"other account", apigwtest.Call{Body: map[string]any{"subscription_event": map[string]any{"id": id}}, AccountID: other.ID}, 404},
		{"json body", apigwtest.Call{Body: map[string]any{"subscription_event": map[string]any{"id": id}}, AccountID: acc.ID}, 204},
		{"again", apigwtest.Call{Body: map[string]any{"subscription_event": map[string]any{"id": id}}, AccountID: acc.ID}, 404},
		{"query string", apigwtest.Call{Query: url.Values{"subscription_event[data_source_uuid]": {ds.UUID}, "subscription_event[external_id]": {"ev-2"}}, AccountID: acc.ID}, 204},
	}
	for _, tc := range deleteCases {
		t.Run("delete/"+tc.name, func(t *testing.T) {
			if resp := apitest.Raw(t, env.API, "DeleteSubscriptionEvent", tc.call); resp.StatusCode != tc.status {
				t.Fatalf("%d %s", resp.StatusCode, resp.Body)
			}
		})
	}
	if _, body := get(nil, acc.ID); len(body["subscription_events"].([]any)) != 1 {
		t.Fatalf("after deletes: %v", body)
	}
	if idx, err := env.Deps.Store.GetBillingIndex(ctx, acc.ID, cus); err != nil || len(idx.Events) != 1 {
		t.Fatalf("index after deletes %v %v", idx.Events, err)
	}
}
