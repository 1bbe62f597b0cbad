package billing_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/model"
)

// TestLineItemOperations: create on an invoice, retrieve, update and delete, by uuid and
// by data source and external id; the subscription follows (a changed plan, a deleted
// item's subscription gone) and the customer is recomputed.
func TestLineItemOperations(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	ds := b.F.DS.UUID
	invs := b.ImportInvoices(map[string]any{"external_id": "jan", "date": "2024-01-01T00:00:00Z", "currency": "USD"})
	inv := invs[0]["uuid"].(string)
	byExt := map[string][]string{"data_source_uuid": {ds}, "external_id": {"li-1"}}

	status, li := b.Call("CreateInvoiceLineItem",
		map[string]string{"invoice_uuid": inv}, nil, map[string]any{"type": "subscription", "external_id": "li-1",
			"subscription_external_id": "s1", "plan_uuid": b.F.Plan.UUID, "service_period_start": "2024-01-01T00:00:00Z",
			"service_period_end": "2024-02-01T00:00:00Z", "amount_in_cents": 2000})
	if status != 201 || li["external_id"] != "li-1" || li["amount_in_cents"] != 2000.0 || li["plan_uuid"] != b.F.Plan.UUID ||
		li["disabled"] != false || li["subscription_uuid"] == nil {
		t.Fatalf("create: %d %v", status, li)
	}
	uuid := li["uuid"].(string)
	if m := b.Recompute(); m.MRR != 2000 {
		t.Fatalf("after create: %+v", m)
	}
	// Without an external id: a second line item, added rather than replacing.
	status, one := b.Call("CreateInvoiceLineItem",
		map[string]string{"invoice_uuid": inv}, nil, map[string]any{"type": "one_time", "amount_in_cents": 500, "description": "setup"})
	if status != 201 || one["external_id"] != nil || one["description"] != "setup" {
		t.Fatalf("create one-time: %d %v", status, one)
	}

	for _, get := range []struct {
		name   string
		op     string
		params map[string]string
		query  map[string][]string
	}{
		{"by uuid", "GetLineItem", map[string]string{"line_item_uuid": uuid}, nil},
		{"by external id", "GetLineItemByExternalId", nil, byExt},
	} {
		status, got := b.Call(get.op, get.params, get.query, nil)
		if status != 200 || got["uuid"] != uuid || got["external_id"] != "li-1" {
			t.Errorf("get %s: %d %v", get.name, status, got)
		}
	}

	silver := b.Plan("silver")
	status, got := b.Call("UpdateLineItemByExternalId", nil, byExt,
		map[string]any{"amount_in_cents": 4000, "plan_uuid": silver})
	if status != 200 || got["uuid"] != uuid || got["amount_in_cents"] != 4000.0 || got["plan_uuid"] != silver ||
		got["service_period_start"] != "2024-01-01T00:00:00.000Z" {
		t.Fatalf("update by external id: %d %v", status, got)
	}
	if m := b.Recompute(); m.MRR != 4000 {
		t.Fatalf("after update: %+v", m)
	}
	_, subs := b.Call("ListImportSubscriptions",
		map[string]string{"customer_uuid": b.F.Cust.UUID}, nil, nil)
	if s := subs["subscriptions"].([]any); len(s) != 1 || s[0].(map[string]any)["plan_uuid"] != silver {
		t.Errorf("the subscription's plan did not follow: %v", subs)
	}
	for _, bad := range []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"another external id", map[string]any{"external_id": "li-2"}, 422},
		{"an amount that is no number", map[string]any{"amount_in_cents": "lots"}, 422},
		{"a plan of no data source", map[string]any{"plan_uuid": "pl_00000000-0000-4000-8000-000000000000"}, 422},
	} {
		if status, body := b.Call("UpdateLineItem",
			map[string]string{"line_item_uuid": uuid}, nil, bad.body); status != bad.status || body["error"] == nil {
			t.Errorf("update with %s: %d %v", bad.name, status, body)
		}
	}

	if status, _ := b.Call("DeleteLineItem",
		map[string]string{"line_item_uuid": uuid}, nil, nil); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	if m := b.Recompute(); m.MRR != 0 || m.Status != "New Lead" {
		t.Errorf("after delete: %+v", m)
	}
	if status, _ := b.Call("GetLineItemByExternalId", nil, byExt, nil); status != 404 {
		t.Errorf("get after delete: %d", status)
	}
	_, subs = b.Call("ListImportSubscriptions",
		map[string]string{"customer_uuid": b.F.Cust.UUID}, nil, nil)
	if s := subs["subscriptions"].([]any); len(s) != 0 {
		t.Errorf("the deleted line item's subscription is still there: %v", subs)
	}
	_, got = b.Call("GetInvoice", map[string]string{"invoice_uuid": inv}, nil, nil)
	if lines := got["line_items"].([]any); len(lines) != 1 || lines[0].(map[string]any)["uuid"] != one["uuid"] {
		t.Errorf("invoice after delete: %v", got)
	}
	if status, _ := b.Call("DeleteLineItem",
		map[string]string{"line_item_uuid": uuid}, nil, nil); status != 404 {
		t.Errorf("delete again: %d", status)
	}
}

// TestLineItemExternalIDsAreUniquePerDataSource: a line item external id another
// invoice of the data source holds is refused; once that one is deleted it is free.
func TestLineItemExternalIDsAreUniquePerDataSource(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	invs := b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 1000, "successful"),
		map[string]any{"external_id": "feb", "date": "2024-02-01T00:00:00Z", "currency": "USD"})
	add := func() (int, map[string]any) {
		return b.Call("CreateInvoiceLineItem",
			map[string]string{"invoice_uuid": invs[1]["uuid"].(string)}, nil, map[string]any{"type": "one_time",
				"external_id": "li-jan", "amount_in_cents": 100})
	}
	if status, body := add(); status != 422 {
		t.Fatalf("a used external id: %d %v", status, body)
	}
	line := invs[0]["line_items"].([]any)[0].(map[string]any)["uuid"].(string)
	if status, _ := b.Call("DeleteLineItem",
		map[string]string{"line_item_uuid": line}, nil, nil); status != 204 {
		t.Fatal("delete")
	}
	if status, body := add(); status != 201 || body["uuid"] != line {
		t.Fatalf("a freed external id: %d %v (the uuid derives from the data source and external id)", status, body)
	}
}

// TestTransactionOperations: retrieve, update and delete, by uuid and by external id.
func TestTransactionOperations(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	ds := b.F.DS.UUID
	invs := b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-15T00:00:00Z", "2024-02-15T00:00:00Z", 1000, "failed"))
	uuid := invs[0]["transactions"].([]any)[0].(map[string]any)["uuid"].(string)
	byExt := map[string][]string{"data_source_uuid": {ds}, "external_id": {"tr-jan"}}
	if m := b.Recompute(); m.Status != "Past Due" {
		t.Fatalf("before: %+v", m)
	}
	status, got := b.Call("GetTransactionByExternalId", nil, byExt, nil)
	if status != 200 || got["uuid"] != uuid || got["result"] != "failed" || got["disabled"] != false {
		t.Fatalf("get by external id: %d %v", status, got)
	}
	status, got = b.Call("UpdateTransaction",
		map[string]string{"transaction_uuid": uuid}, nil, map[string]any{"result": "successful"})
	if status != 200 || got["result"] != "successful" || got["type"] != "payment" || got["date"] != "2024-01-15T00:00:00.000Z" {
		t.Fatalf("update: %d %v", status, got)
	}
	if m := b.Recompute(); m.Status != "Active" {
		t.Errorf("after a successful payment: %+v", m)
	}
	if status, body := b.Call("UpdateTransactionByExternalId", nil, byExt,
		map[string]any{"result": "maybe"}); status != 422 {
		t.Errorf("update with a bad result: %d %v", status, body)
	}
	if status, _ := b.Call("DeleteTransactionByExternalId", nil, byExt, nil); status != 204 {
		t.Fatalf("delete by external id: %d", status)
	}
	b.Recompute()
	if status, _ := b.Call("GetTransaction",
		map[string]string{"transaction_uuid": uuid}, nil, nil); status != 404 {
		t.Errorf("get after delete: %d", status)
	}
}

// TestUpdateInvoiceAndDeleteCustomerInvoices: PATCH an invoice's date and currency (by
// uuid and by external id); DELETE every invoice of a customer in a data source.
func TestUpdateInvoiceAndDeleteCustomerInvoices(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	ds := b.F.DS.UUID
	invs := b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 1000, "successful"),
		b.MonthInvoice("feb", "s1", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 1000, "successful"))
	status, got := b.Call("UpdateInvoice", map[string]string{"invoice_uuid": invs[0]["uuid"].(string)},
		nil, map[string]any{"due_date": "2024-01-15T00:00:00Z", "collection_method": "manual"})
	if status != 200 || got["due_date"] != "2024-01-15T00:00:00.000Z" || got["collection_method"] != "manual" ||
		got["date"] != "2024-01-01T00:00:00.000Z" || len(got["line_items"].([]any)) != 1 || got["disabled"] != false {
		t.Fatalf("update: %d %v", status, got)
	}
	status, got = b.Call("UpdateInvoiceByExternalId", nil,
		map[string][]string{"data_source_uuid": {ds}, "external_id": {"feb"}}, map[string]any{"currency": "usd!"})
	if raw, _ := json.Marshal(got); status != 422 {
		t.Errorf("a bad currency: %d %s", status, raw)
	}
	if status, _ := b.Call("UpdateInvoiceByExternalId", nil,
		map[string][]string{"data_source_uuid": {ds}, "external_id": {"feb"}}, map[string]any{"external_id": "mar"}); status != 422 {
		t.Errorf("a new external id: %d", status)
	}
	b.Recompute()

	if status, _ := b.Call("DeleteCustomerInvoices", map[string]string{"data_source_uuid": ds,
		"customer_uuid": "cus_00000000-0000-4000-8000-000000000000"}, nil, nil); status != 404 {
		t.Errorf("an unknown customer: %d", status)
	}
	if status, _ := b.Call("DeleteCustomerInvoices", map[string]string{"data_source_uuid": ds,
		"customer_uuid": b.F.Cust.UUID}, nil, nil); status != 204 {
		t.Fatalf("delete all: %d", status)
	}
	if m := b.Recompute(); m.MRR != 0 || m.Status != "New Lead" {
		t.Errorf("after deleting every invoice: %+v", m)
	}
	_, list := b.Call("ListImportInvoices",
		map[string]string{"customer_uuid": b.F.Cust.UUID}, nil, nil)
	if len(list["invoices"].([]any)) != 0 {
		t.Errorf("invoices left: %v", list)
	}
	if status, _ := b.Call("GetLineItemByExternalId", nil,
		map[string][]string{"data_source_uuid": {ds}, "external_id": {"li-jan"}}, nil); status != 404 {
		t.Errorf("a deleted invoice's line item: %d", status)
	}
	if status, _ := b.Call("DeleteCustomerInvoices", map[string]string{"data_source_uuid": ds,
		"customer_uuid": b.F.Cust.UUID}, nil, nil); status != 204 {
		t.Errorf("delete all again: %d", status)
	}
}

// TestRecordChangesKeepTheInvoiceSubscriptions: adding a transaction or a line item to a
// stored invoice keeps what its subscriptions hold beyond their line items: the
// cancellation dates set through the subscriptions API and the creation time.
func TestRecordChangesKeepTheInvoiceSubscriptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   string
		body map[string]any
	}{
		{"a transaction", "CreateInvoiceTransaction",
			map[string]any{"type": "refund", "result": "successful", "date": "2024-01-20T00:00:00Z", "amount_in_cents": 100}},
		{"a line item", "CreateInvoiceLineItem",
			map[string]any{"type": "one_time", "amount_in_cents": 500, "description": "setup"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
			invs := b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-15T00:00:00Z", "2024-02-15T00:00:00Z", 1000, "successful"))
			sub := invs[0]["line_items"].([]any)[0].(map[string]any)["subscription_uuid"].(string)
			if status, got := b.Call("UpdateImportSubscription",
				map[string]string{"subscription_uuid": sub}, nil, map[string]any{"cancelled_at": "2024-02-01T00:00:00Z"}); status != 202 {
				t.Fatalf("cancel: %d %v", status, got)
			}
			before := storedSubscription(t, b, sub)
			if status, got := b.Call(tc.op, map[string]string{"invoice_uuid": invs[0]["uuid"].(string)}, nil, tc.body); status != 201 {
				t.Fatalf("add %s: %d %v", tc.name, status, got)
			}
			after := storedSubscription(t, b, sub)
			if len(after.CancellationDates) != 1 || !after.CreatedAt.Equal(before.CreatedAt) {
				t.Errorf("subscription after adding %s: %+v, before: %+v", tc.name, after, before)
			}
		})
	}
}

func storedSubscription(t *testing.T, b *apitest.Billing, uuid string) model.Subscription {
	t.Helper()
	subs, err := b.F.D.Store.GetSubscriptions(context.Background(), b.F.Acc.ID, []string{uuid})
	if err != nil || subs[uuid].UUID == "" {
		t.Fatalf("subscription %s: %v %v", uuid, subs, err)
	}
	return subs[uuid]
}
