package metricsapi_test

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
)

// TestMigrationMergedThenConnected is the migration scenario through the API:
// a customer moves billing systems (old subscription cancelled, a new one on a second
// customer record), the records are merged, then the two subscriptions connected, so
// the history shows one new business and the real price change only.
func TestMigrationMergedThenConnected(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-04-15T00:00:00Z"), true)
	d, acc := f.D.API(), f.Acc.ID
	ctx := context.Background()
	old := f.Cust
	f.AddInvoices(
		recomputetest.Invoice{Ext: "old-1", Start: recomputetest.At("2024-01-01T00:00:00Z"), Amount: 1000, Paid: true},
		recomputetest.Invoice{Ext: "old-2", Start: recomputetest.At("2024-02-01T00:00:00Z"), Amount: 1000, Paid: true,
			Cancel: recomputetest.TP(recomputetest.At("2024-03-01T00:00:00Z"))})
	f.Run()
	newer := f.AddCustomer("c2")
	f.AddInvoices(
		recomputetest.Invoice{Ext: "new-1", Sub: "s2", Start: recomputetest.At("2024-03-01T00:00:00Z"), Amount: 1200, Paid: true},
		recomputetest.Invoice{Ext: "new-2", Sub: "s2", Start: recomputetest.At("2024-04-01T00:00:00Z"), Amount: 1200, Paid: true})
	f.Run()

	// Merge: validation first.
	for _, tc := range []struct {
		name string
		body any
		want int
	}{
		{"no from", map[string]any{"into": map[string]any{"customer_uuid": old.UUID}}, 400},
		{"unknown", map[string]any{"from": map[string]any{"customer_uuid": "cus_00000000-0000-0000-0000-000000000000"},
			"into": map[string]any{"customer_uuid": old.UUID}}, 404},
		{"itself", map[string]any{"from": map[string]any{"customer_uuid": old.UUID}, "into": map[string]any{"customer_uuid": old.UUID}}, 422},
		{"unknown external id", map[string]any{"from": map[string]any{"data_source_uuid": f.DS.UUID, "external_id": "nope"},
			"into": map[string]any{"customer_uuid": old.UUID}}, 404},
	} {
		if status, body := apitest.Call(t, d, "MergeCustomers", acc, "", nil, tc.body); status != tc.want {
			t.Errorf("merge %s: %d %v", tc.name, status, body)
		}
	}
	if status, _ := apitest.Call(t, d, "MergeCustomers", "acc_other", "", nil, map[string]any{
		"from": map[string]any{"customer_uuid": newer.UUID}, "into": map[string]any{"customer_uuid": old.UUID}}); status != 404 {
		t.Errorf("merge from another account: %d", status)
	}
	status, body := apitest.Call(t, d, "MergeCustomers", acc, "", nil, map[string]any{
		"from": map[string]any{"data_source_uuid": f.DS.UUID, "external_id": "c2"},
		"into": map[string]any{"customer_uuid": old.UUID}})
	if status != 202 || len(body) != 0 {
		t.Fatalf("merge: %d %v", status, body)
	}
	// The jobs worker's part.
	recomputetest.Must(t, f.Rec.Merges(ctx, acc, old.UUID))
	recomputetest.Must(t, f.Rec.Merges(ctx, acc, old.UUID)) // a redelivery changes nothing
	f.Select(old)
	merged := f.Customer()
	if !slices.Equal(merged.ExternalIDs, []string{"c1", "c2"}) || !slices.Contains(merged.Tags, "merged-customer") ||
		merged.MRR != 1200 || merged.Status != "Active" || !merged.CustomerSince.Equal(recomputetest.At("2024-01-01T00:00:00Z")) {
		t.Fatalf("merged customer %+v", merged)
	}
	if _, err := d.Store.GetCustomer(ctx, acc, newer.UUID); err == nil {
		t.Fatal("the from customer still exists")
	}
	_, body = apitest.Call(t, d, "ListCustomerActivities", acc, old.UUID, nil, nil)
	// The churn of the old subscription and the reactivation on the new one share an
	// instant; the activity log orders equal instants by activity uuid.
	types := activityTypes(t, body)
	if types[0] != "new_biz" || !slices.Equal(slices.Sorted(slices.Values(types[1:])), []string{"churn", "reactivation"}) {
		t.Fatalf("activities after merge %v", types)
	}

	// Connect: validation, then the real thing.
	s1 := map[string]any{"data_source_uuid": f.DS.UUID, "external_id": "s1"}
	s2 := map[string]any{"data_source_uuid": f.DS.UUID, "external_id": "s2"}
	for _, tc := range []struct {
		name string
		body any
		want int
	}{
		{"one", map[string]any{"subscriptions": []any{s1}}, 400},
		{"no data source", map[string]any{"subscriptions": []any{s1, map[string]any{"external_id": "s2"}}}, 400},
		{"unknown", map[string]any{"subscriptions": []any{s1, map[string]any{"data_source_uuid": f.DS.UUID, "external_id": "zz"}}}, 404},
		{"twice", map[string]any{"subscriptions": []any{s1, s1}}, 422},
	} {
		if status, body := apitest.Call(t, d, "ConnectSubscriptions", acc, old.UUID, nil, tc.body); status != tc.want {
			t.Errorf("connect %s: %d %v", tc.name, status, body)
		}
	}
	_, body = apitest.Call(t, d, "ListCustomerSubscriptions", acc, old.UUID, nil, nil)
	subs := apitest.Entries(t, body)
	if len(subs) != 2 {
		t.Fatalf("subscriptions before connecting: %v", body)
	}
	byUUID := map[string]any{"data_source_uuid": f.DS.UUID, "uuid": subs[1]["uuid"]} // bare Metrics-API uuid
	if status, body := apitest.Call(t, d, "ConnectSubscriptions", acc, old.UUID, nil,
		map[string]any{"subscriptions": []any{s1, byUUID}}); status != 202 || len(body) != 0 {
		t.Fatalf("connect: %d %v", status, body)
	}
	f.Run()
	_, body = apitest.Call(t, d, "ListCustomerSubscriptions", acc, old.UUID, nil, nil)
	subs = apitest.Entries(t, body)
	if len(subs) != 1 || subs[0]["external_id"] != "s2" || subs[0]["start-date"] != "2024-01-01T00:00:00+00:00" ||
		subs[0]["mrr"] != 1200.0 {
		t.Fatalf("connected subscriptions %v", body)
	}
	_, body = apitest.Call(t, d, "ListCustomerActivities", acc, old.UUID, nil, nil)
	if types := activityTypes(t, body); !slices.Equal(types, []string{"new_biz", "expansion"}) {
		t.Fatalf("activities after connecting %v (%v)", types, body)
	}

	if status, _ := apitest.Call(t, d, "DisconnectSubscriptions", acc, old.UUID, nil,
		map[string]any{"subscriptions": []any{s1, s2}}); status != 202 {
		t.Fatalf("disconnect: %d", status)
	}
	f.Run()
	_, body = apitest.Call(t, d, "ListCustomerSubscriptions", acc, old.UUID, nil, nil)
	if len(apitest.Entries(t, body)) != 2 {
		t.Fatalf("after disconnecting %v", body)
	}
}

func activityTypes(t *testing.T, body map[string]any) []string {
	t.Helper()
	var out []string
	for _, e := range apitest.Entries(t, body) {
		out = append(out, e["type"].(string))
	}
	return out
}

func TestCustomerSubscriptionsPagesAndErrors(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-02-15T00:00:00Z"), true)
	d, acc := f.D.API(), f.Acc.ID
	f.AddInvoices(
		recomputetest.Invoice{Ext: "a", Sub: "s1", Start: recomputetest.At("2024-01-01T00:00:00Z"), Amount: 1000, Paid: true},
		recomputetest.Invoice{Ext: "b", Sub: "s2", Start: recomputetest.At("2024-02-01T00:00:00Z"), Amount: 500, Paid: true})
	f.Run()

	status, first := apitest.Call(t, d, "ListCustomerSubscriptions", acc, f.Cust.UUID,
		url.Values{"per_page": {"1"}}, nil)
	rows := apitest.Entries(t, first)
	if status != 200 || len(rows) != 1 || first["has_more"] != true || first["per_page"] != 1.0 || first["page"] != 1.0 {
		t.Fatalf("first page %d %v", status, first)
	}
	// Without a set, the subscription is its own set (recorded), never null.
	want := map[string]any{"external_id": "s1", "subscription_set_external_id": "s1", "quantity": 1.0, "mrr": 1000.0,
		"arr": 12000.0, "status": "active", "plan": "Gold", "billing-cycle": "month", "billing-cycle-count": 1.0,
		"start-date": "2024-01-01T00:00:00+00:00", "end-date": "2024-02-01T00:00:00+00:00", "currency": "USD", "currency-sign": "$"}
	for k, v := range want {
		if rows[0][k] != v {
			t.Errorf("%s = %v, want %v", k, rows[0][k], v)
		}
	}
	cursor := first["cursor"].(string)
	_, second := apitest.Call(t, d, "ListCustomerSubscriptions", acc, f.Cust.UUID,
		url.Values{"per_page": {"1"}, "cursor": {cursor}}, nil)
	if rows := apitest.Entries(t, second); len(rows) != 1 || rows[0]["external_id"] != "s2" || second["has_more"] != false ||
		second["per_page"] != nil {
		t.Fatalf("second page %v", second)
	}
	for _, tc := range []struct {
		name     string
		account  string
		customer string
		q        url.Values
		want     int
	}{
		{"tampered cursor", acc, f.Cust.UUID, url.Values{"cursor": {cursor + "x"}}, 400},
		{"bad per_page", acc, f.Cust.UUID, url.Values{"per_page": {"0"}}, 400},
		{"unknown customer", acc, "cus_00000000-0000-0000-0000-000000000000", nil, 404},
		{"another account", "acc_other", f.Cust.UUID, nil, 404},
	} {
		for _, op := range []string{"ListCustomerSubscriptions", "ListCustomerActivities"} {
			if status, body := apitest.Call(t, d, op, tc.account, tc.customer, tc.q, nil); status != tc.want {
				t.Errorf("%s %s: %d %v", op, tc.name, status, body)
			}
		}
	}
	// Another customer of the same account cannot use this customer's cursor.
	first1 := f.Cust
	other := f.AddCustomer("c2")
	if status, _ := apitest.Call(t, d, "ListCustomerSubscriptions", acc, other.UUID,
		url.Values{"cursor": {cursor}}, nil); status != 400 {
		t.Errorf("cursor of another customer: %d", status)
	}

	_, acts := apitest.Call(t, d, "ListCustomerActivities", acc, first1.UUID, nil, nil)
	list := apitest.Entries(t, acts)
	if len(list) != 2 || list[0]["type"] != "new_biz" || list[0]["activity-mrr"] != 1000.0 ||
		list[0]["activity-arr"] != 12000.0 || list[0]["date"] != "2024-01-01T00:00:00+00:00" ||
		list[0]["description"] != "purchased the Gold plan" || list[1]["type"] != "expansion" ||
		list[1]["activity-mrr-movement"] != 500.0 || list[1]["activity-mrr"] != 1500.0 {
		t.Fatalf("activities %v", acts)
	}
}
