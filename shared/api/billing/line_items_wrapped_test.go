package billing_test

import (
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

// TestCreateLineItemsWrapped sends what chartmogul-go v5 (main, line_items.go
// CreateLineItems) sends: POST import/invoices/:invoiceUUID/line_items with the body
// {"line_items":[…]}, each item as its LineItem struct marshals (omitempty fields left
// out), and reads {"line_items":[…]} back (the LineItems result type). The items are
// added in order, both counted; one bad item refuses all, naming it.
func TestCreateLineItemsWrapped(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	invs := b.ImportInvoices(map[string]any{"external_id": "jan", "date": "2024-01-01T00:00:00Z", "currency": "USD"})
	inv := map[string]string{"invoice_uuid": invs[0]["uuid"].(string)}
	body := `{"line_items":[{"amount_in_cents":2000,"external_id":"li_go_1","plan_uuid":"` + b.F.Plan.UUID + `",` +
		`"quantity":2,"service_period_end":"2024-02-01T00:00:00Z","service_period_start":"2024-01-01T00:00:00Z",` +
		`"subscription_external_id":"sub_go","type":"subscription"},` +
		`{"amount_in_cents":1500,"description":"Setup","quantity":1,"type":"one_time"}]}`
	status, got := b.Call("CreateInvoiceLineItem", inv, nil, body)
	items, _ := got["line_items"].([]any)
	if status != 201 || len(got) != 1 || len(items) != 2 {
		t.Fatalf("create: %d %v", status, got)
	}
	first, second := items[0].(map[string]any), items[1].(map[string]any)
	if first["external_id"] != "li_go_1" || first["quantity"] != 2.0 || first["plan_uuid"] != b.F.Plan.UUID ||
		first["subscription_uuid"] == nil || second["type"] != "one_time" || second["description"] != "Setup" {
		t.Errorf("line items %v", items)
	}
	if m := b.Recompute(); m.MRR != 2000 {
		t.Errorf("after the wrapped create: %+v", m)
	}
	for _, bad := range []struct{ body, param string }{
		{`{"line_items":[{"type":"one_time","amount_in_cents":1},{"type":"subscription","amount_in_cents":"lots"}]}`, "line_items[1].amount_in_cents"},
		{`{"line_items":[{"type":"subscription","plan_uuid":"pl_00000000-0000-4000-8000-000000000000"}]}`, "line_items[0].plan_uuid"},
		{`{"line_items":[]}`, "line_items"},
		{`{"line_items":["x"]}`, "line_items[0]"},
	} {
		status, got := b.Call("CreateInvoiceLineItem", inv, nil, bad.body)
		details, _ := got["error_details"].([]any)
		if status != 422 || len(details) != 1 || details[0].(map[string]any)["param"] != bad.param {
			t.Errorf("%s: %d %v, want a 422 naming %s", bad.body, status, got, bad.param)
		}
	}
	_, held := b.Call("GetInvoice", inv, nil, nil)
	if n := len(held["line_items"].([]any)); n != 2 {
		t.Errorf("the refused bodies added line items: %d", n)
	}
}
