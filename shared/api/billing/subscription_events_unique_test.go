package billing_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// TestSubscriptionEventExternalIDUniqueOnUpdate: PATCH keeps external_id unique in
// the data source, as create does, against events created with an external id and
// events renamed to one; a refused change is a 422 in the family-B shape and leaves
// the stored event as it was; a freed external id can be taken again.
func TestSubscriptionEventExternalIDUniqueOnUpdate(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Unique")
	ctx := context.Background()
	_, ds := apitest.ImportedCustomer(t, env, acc.ID)
	call := func(op string, event map[string]any) (int, string) {
		resp := apitest.Raw(t, env.API, op, apigwtest.Call{AccountID: acc.ID, Body: map[string]any{"subscription_event": event}})
		return resp.StatusCode, resp.Body
	}
	ids := map[string]int64{}
	newEvent := func(ext string) map[string]any {
		return map[string]any{"data_source_uuid": ds.UUID, "customer_external_id": "c00", "event_type": "subscription_cancelled",
			"event_date": "2024-05-01", "effective_date": "2024-05-01", "subscription_external_id": "c00-s", "external_id": ext}
	}
	for _, ext := range []string{"a", "b", "c"} {
		status, body := apitest.Do(t, env.API, "CreateSubscriptionEvent", apigwtest.Call{AccountID: acc.ID,
			Body: map[string]any{"subscription_event": newEvent(ext)}})
		if status != http.StatusCreated {
			t.Fatalf("create %s: %d %v", ext, status, body)
		}
		ids[ext] = int64(body["id"].(float64))
	}
	rename := func(event, to string) func() (int, string) {
		return func() (int, string) {
			return call("UpdateSubscriptionEvent", map[string]any{"id": ids[event], "external_id": to})
		}
	}
	steps := []struct {
		name   string
		run    func() (int, string)
		status int
		want   string
		// after: the external id each event must have once the step ran
		after map[string]string
	}{
		{"rename to an id an event was created with", rename("a", "b"), 422, `"param":"external_id"`,
			map[string]string{"a": "a", "b": "b"}},
		{"rename to a free id", rename("a", "a2"), 200, `"external_id":"a2"`, map[string]string{"a": "a2"}},
		{"create with a renamed event's id", func() (int, string) { return call("CreateSubscriptionEvent", newEvent("a2")) },
			422, `"param":"external_id"`, map[string]string{"a": "a2"}},
		{"rename to a renamed event's id", rename("b", "a2"), 422, `"param":"external_id"`,
			map[string]string{"a": "a2", "b": "b"}},
		{"rename to an id its creator gave up", rename("b", "a"), 200, `"external_id":"a"`,
			map[string]string{"a": "a2", "b": "a"}},
		{"back to the creation id, now held by another", rename("a", "a"), 422, `"param":"external_id"`,
			map[string]string{"a": "a2", "b": "a"}},
		{"found by the id it was renamed to", func() (int, string) {
			return call("UpdateSubscriptionEvent", map[string]any{"data_source_uuid": ds.UUID, "external_id": "a", "quantity": 2})
		}, 200, `"id":` + strconv.FormatInt(ids["b"], 10), map[string]string{"b": "a"}},
		{"deleting the holder frees the id", func() (int, string) {
			return call("DeleteSubscriptionEvent", map[string]any{"id": ids["b"]})
		}, 204, ``, map[string]string{"a": "a2"}},
		{"back to the creation id once free", rename("a", "a"), 200, `"external_id":"a"`, map[string]string{"a": "a"}},
		{"an id given up can be created again", func() (int, string) { return call("CreateSubscriptionEvent", newEvent("a2")) },
			201, `"external_id":"a2"`, map[string]string{"a": "a"}},
		{"unchanged external id with other fields", func() (int, string) {
			return call("UpdateSubscriptionEvent", map[string]any{"id": ids["c"], "external_id": "c", "quantity": 3})
		}, 200, `"quantity":3`, map[string]string{"c": "c"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			status, body := st.run()
			if status != st.status || !strings.Contains(body, st.want) {
				t.Fatalf("%d %s", status, body)
			}
			if status == 422 && !strings.Contains(body, `"error_details":[{"param":"external_id","code":"invalid"`) {
				t.Fatalf("not the family-B error shape: %s", body)
			}
			for event, ext := range st.after {
				e, err := env.Deps.Store.GetSubscriptionEvent(ctx, acc.ID, ids[event])
				if err != nil || e.ExternalID != ext {
					t.Fatalf("event %s: external id %q, want %q (%v)", event, e.ExternalID, ext, err)
				}
			}
		})
	}
	// Two renames to the same free id at once: the conditional writes let one win.
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i, event := range []string{"a", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], _ = rename(event, "z")()
		}()
	}
	wg.Wait()
	if !(statuses[0] == 200 && statuses[1] == 422 || statuses[0] == 422 && statuses[1] == 200) {
		t.Fatalf("concurrent renames: %v", statuses)
	}
	found, err := env.Deps.Store.SubscriptionEventByExternalID(ctx, acc.ID, ds.UUID, "z")
	if err != nil || (found.ID != ids["a"] && found.ID != ids["c"]) {
		t.Fatalf("holder of z: %+v %v", found, err)
	}
}
