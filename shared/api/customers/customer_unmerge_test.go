package customers_test

import (
	"context"
	"net/url"
	"reflect"
	"slices"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
)

// TestUnmergeCustomer merges two customers, then unmerges the second data source
// customer: it becomes a customer of its own with its invoices, subscriptions and
// metrics, the CRM records asked for, and its external id (a later import finds it);
// the first keeps the rest. A redelivered job changes nothing more.
func TestUnmergeCustomer(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-04-15T00:00:00Z"), true)
	d, acc, ctx := f.D.API(), f.Acc.ID, context.Background()
	member := model.Member{AccountID: acc, Email: "owner@example.com", Name: "Owner"}
	recomputetest.Must(t, d.Store.PutMember(ctx, member))
	first := f.Cust
	f.AddInvoices(recomputetest.Invoice{Ext: "a-1", Start: recomputetest.At("2024-01-01T00:00:00Z"), Amount: 1000, Paid: true})
	f.Run()
	second := f.AddCustomer("c2")
	f.AddInvoices(recomputetest.Invoice{Ext: "b-1", Sub: "s2", Start: recomputetest.At("2024-03-01T00:00:00Z"), Amount: 1200, Paid: true})
	f.Run()
	post := func(ep string, body map[string]any) map[string]any {
		t.Helper()
		var status int
		var got map[string]any
		switch ep {
		case "note":
			status, got = apitest.Call(t, d, "CreateNote", acc, "", nil, body)
		case "task":
			status, got = apitest.Call(t, d, "CreateTask", acc, "", nil, body)
		case "opportunity":
			status, got = apitest.Call(t, d, "CreateOpportunity", acc, "", nil, body)
		}
		if status != 201 {
			t.Fatalf("create %s: %d %v", ep, status, got)
		}
		return got
	}
	note := post("note", map[string]any{"customer_uuid": second.UUID, "type": "note", "text": "theirs"})
	task := post("task", map[string]any{"customer_uuid": second.UUID, "task_details": "call", "assignee": member.Email,
		"due_date": "2024-05-01"})
	opp := post("opportunity", map[string]any{"customer_uuid": second.UUID, "owner": member.Email, "pipeline": "P",
		"pipeline_stage": "S", "estimated_close_date": "2024-06-01", "currency": "USD", "amount_in_cents": 100})

	if status, body := apitest.Call(t, d, "MergeCustomers", acc, "", nil, map[string]any{
		"from": map[string]any{"customer_uuid": second.UUID}, "into": map[string]any{"customer_uuid": first.UUID}}); status != 202 {
		t.Fatalf("merge: %d %v", status, body)
	}
	recomputetest.Must(t, f.Rec.Merges(ctx, acc, first.UUID))
	f.Select(first)
	if merged := f.Customer(); merged.MRR != 2200 || !slices.Equal(merged.ExternalIDs, []string{"c1", "c2"}) {
		t.Fatalf("merged %+v", merged)
	}
	// The merge moved the CRM records too.
	if recordCustomer(t, d, acc, task, "task_uuid") != first.UUID || recordCustomer(t, d, acc, opp, "uuid") != first.UUID ||
		recordCustomer(t, d, acc, note, "uuid") != first.UUID {
		t.Fatal("the merge left CRM records behind")
	}

	lone := f.AddCustomer("lonely")
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		param  string
	}{
		{"no customer", map[string]any{"data_source_uuid": f.DS.UUID, "external_id": "c2"}, 400, "customer_uuid"},
		{"no external id", map[string]any{"customer_uuid": first.UUID, "data_source_uuid": f.DS.UUID}, 400, "external_id"},
		{"unknown customer", map[string]any{"customer_uuid": "cus_00000000-0000-7000-8000-000000000000", "data_source_uuid": f.DS.UUID,
			"external_id": "c2"}, 404, "customer_id"},
		{"not its pair", map[string]any{"customer_uuid": first.UUID, "data_source_uuid": f.DS.UUID, "external_id": "c9"}, 422, "external_id"},
		{"never merged", map[string]any{"customer_uuid": lone.UUID, "data_source_uuid": f.DS.UUID, "external_id": "lonely"}, 422, "customer_uuid"},
		{"bad move", map[string]any{"customer_uuid": first.UUID, "data_source_uuid": f.DS.UUID, "external_id": "c2",
			"move_to_new_customer": []any{"invoices"}}, 422, "move_to_new_customer"},
	} {
		status, body := apitest.Call(t, d, "UnmergeCustomers", acc, "", nil, tc.body)
		if status != tc.status || body["param"] != tc.param {
			t.Errorf("%s: %d %v", tc.name, status, body)
		}
	}
	if status, _ := apitest.Call(t, d, "UnmergeCustomers", "acc_other", "", nil, map[string]any{
		"customer_uuid": first.UUID, "data_source_uuid": f.DS.UUID, "external_id": "c2"}); status != 404 {
		t.Errorf("unmerge with another account's key: %d", status)
	}

	status, body := apitest.Call(t, d, "UnmergeCustomers", acc, "", nil, map[string]any{
		"customer_uuid": first.UUID, "data_source_uuid": f.DS.UUID, "external_id": "c2",
		"move_to_new_customer": []any{"tasks", "notes"}})
	if status != 202 || body == nil || len(body) != 0 {
		t.Fatalf("unmerge: %d %v", status, body)
	}
	// The jobs worker's part, twice (a redelivery).
	recomputetest.Must(t, f.Rec.Unmerges(ctx, acc, first.UUID))
	recomputetest.Must(t, f.Rec.Unmerges(ctx, acc, first.UUID))

	f.Select(first)
	left := f.Customer()
	if !slices.Equal(left.ExternalIDs, []string{"c1"}) || left.ExternalID != "c1" || left.MRR != 1000 ||
		!slices.Contains(left.Tags, "merged-customer") {
		t.Errorf("the customer unmerged from: %+v", left)
	}
	_, listed := apitest.Call(t, d, "ListCustomers", acc, "", url.Values{"external_id": {"c2"}}, nil)
	found := apitest.Entries(t, listed)
	if len(found) != 1 || found[0]["uuid"] == first.UUID || found[0]["uuid"] == second.UUID {
		t.Fatalf("the new customer: %v", listed)
	}
	fresh := found[0]["uuid"].(string)
	if found[0]["mrr"] != 1200.0 || found[0]["name"] != left.Name ||
		!reflect.DeepEqual(found[0]["data_source_uuids"], []any{f.DS.UUID}) {
		t.Errorf("the new customer %v", found[0])
	}
	invoices := func(customer string) []any {
		_, b := apitest.Call(t, d, "ListImportInvoices", acc, customer, nil, nil)
		var ext []any
		for _, inv := range b["invoices"].([]any) {
			ext = append(ext, inv.(map[string]any)["external_id"])
		}
		return ext
	}
	if got, want := invoices(fresh), []any{"b-1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the new customer's invoices %v", got)
	}
	if got, want := invoices(first.UUID), []any{"a-1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the old customer's invoices %v", got)
	}
	if got, err := d.Store.CustomerUUIDByExternalID(ctx, acc, f.DS.UUID, "c2"); err != nil || got != fresh {
		t.Errorf("external id c2 now names %s, %v", got, err)
	}
	if recordCustomer(t, d, acc, task, "task_uuid") != fresh || recordCustomer(t, d, acc, note, "uuid") != fresh ||
		recordCustomer(t, d, acc, opp, "uuid") != first.UUID {
		t.Errorf("CRM records: task %s, note %s, opportunity %s", recordCustomer(t, d, acc, task, "task_uuid"),
			recordCustomer(t, d, acc, note, "uuid"), recordCustomer(t, d, acc, opp, "uuid"))
	}
}

// recordCustomer is the customer a CRM record (as created) belongs to now.
func recordCustomer(t *testing.T, d *api.Deps, account string, record map[string]any, key string) string {
	t.Helper()
	id := record[key].(string)
	op, param := "GetOpportunity", "opportunity_uuid"
	if key == "task_uuid" {
		op, param = "GetTask", "task_uuid"
	} else if _, isNote := record["author"]; isNote {
		op, param = "GetNote", "note_uuid"
	}
	status, got := apitest.Do(t, d, op, apigwtest.Call{PathParams: map[string]string{param: id}, AccountID: account})
	if status != 200 {
		t.Fatalf("%s %s: %d %v", key, id, status, got)
	}
	return got["customer_uuid"].(string)
}
