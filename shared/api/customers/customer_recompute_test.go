package customers_test

import (
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/jobs"
)

// TestCustomerEditEnqueuesRecompute: an edit that changes what the account series keep
// of a customer (country: geo segments; name: activities) enqueues one recomputation
// of that customer; other edits, and repeating the same values, enqueue nothing.
func TestCustomerEditEnqueuesRecompute(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	c := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "geo", "name": "Geo", "country": "US"})
	uuid := c["uuid"].(string)
	e.Env.ReceiveJobs(t)
	tests := []struct {
		name    string
		op      string
		body    map[string]any
		enqueue bool
	}{
		{"country changes", "UpdateCustomer", map[string]any{"country": "DE"}, true},
		{"same country again", "UpdateCustomer", map[string]any{"country": "de"}, false},
		{"unrelated field", "UpdateCustomer", map[string]any{"city": "Berlin", "website_url": "example.com"}, false},
		{"country cleared through PUT", "PutCustomer", map[string]any{"country": nil}, true},
		{"name changes", "UpdateCustomer", map[string]any{"name": "Geo GmbH"}, true},
		{"rejected edit", "UpdateCustomer", map[string]any{"country": "XX"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, got := e.Do(e.Acc, tc.op, apitest.Cus(uuid), nil, tc.body)
			if rejected := tc.name == "rejected edit"; rejected != (status >= 400 && status < 500) || !rejected && status != 200 {
				t.Fatalf("%d %v", status, got)
			}
			sent := e.Env.ReceiveJobs(t)
			if !tc.enqueue {
				if len(sent) != 0 {
					t.Fatalf("enqueued %+v", sent)
				}
				return
			}
			if len(sent) != 1 || sent[0].Type != jobs.RecomputeCustomer || sent[0].AccountID != e.Acc || sent[0].CustomerUUID != uuid || sent[0].Nonce == "" {
				t.Fatalf("enqueued %+v", sent)
			}
		})
	}
}
