package billing_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
)

// TestEditHistories: the update operations' changes are user edits, shown as
// edit_history_summary (values_changed with each field's original and edited value,
// latest_edit_author, latest_edit_performed_at) on invoices, line items and
// transactions when include_edit_histories=true, and only then; records never edited
// show null. user_created is false for imported records and true for records added
// with handle_as_user_edit=true; balance_transfer is read, kept and shown.
func TestEditHistories(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	invs := b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 2000, "successful"))
	inv := invs[0]
	uuid := inv["uuid"].(string)
	li := inv["line_items"].([]any)[0].(map[string]any)
	tr := inv["transactions"].([]any)[0].(map[string]any)
	if inv["user_created"] != false || li["user_created"] != false || li["balance_transfer"] != nil || tr["user_created"] != false {
		t.Fatalf("imported records: %v", inv)
	}
	if _, ok := inv["edit_history_summary"]; ok {
		t.Fatal("edit_history_summary without include_edit_histories")
	}
	get := func(withEdits bool) map[string]any {
		t.Helper()
		q := map[string][]string{}
		if withEdits {
			q["include_edit_histories"] = []string{"true"}
		}
		status, got := b.Call("GetInvoice", map[string]string{"invoice_uuid": uuid}, q, nil)
		if status != http.StatusOK {
			t.Fatalf("get: %d %v", status, got)
		}
		return got
	}
	if got := get(true); got["edit_history_summary"] != nil || got["line_items"].([]any)[0].(map[string]any)["edit_history_summary"] != nil {
		t.Fatalf("never edited: %v", got)
	}

	// Edits through the update operations: the invoice's currency twice (the summary
	// keeps the first value), a line item's amount and balance_transfer, a transaction's
	// result, then the invoice's status.
	for _, c := range []string{"EUR", "GBP"} {
		if status, got := b.Call("UpdateInvoice", map[string]string{"invoice_uuid": uuid},
			nil, map[string]any{"currency": c}); status != http.StatusOK {
			t.Fatalf("update invoice: %d %v", status, got)
		}
	}
	if status, got := b.Call("UpdateLineItem",
		map[string]string{"line_item_uuid": li["uuid"].(string)}, nil, map[string]any{"amount_in_cents": 2500, "balance_transfer": true}); status != http.StatusOK || got["balance_transfer"] != true {
		t.Fatalf("update line item: %d %v", status, got)
	}
	if status, got := b.Call("UpdateTransaction",
		map[string]string{"transaction_uuid": tr["uuid"].(string)}, nil, map[string]any{"result": "failed"}); status != http.StatusOK {
		t.Fatalf("update transaction: %d %v", status, got)
	}
	if status, got := b.Call("UpdateInvoiceStatus",
		map[string]string{"data_source_uuid": b.F.DS.UUID, "invoice_external_id": "jan"}, nil, map[string]any{"status": "written_off"}); status != http.StatusOK {
		t.Fatalf("status: %d %v", status, got)
	}
	at := "2024-02-10T00:00:00.000Z"
	author := testenv.Member.Email
	got := get(true)
	want := map[string]any{"values_changed": map[string]any{
		"currency": map[string]any{"original_value": "USD", "edited_value": "GBP"},
		"status":   map[string]any{"original_value": nil, "edited_value": "written_off"}},
		"latest_edit_author": author, "latest_edit_performed_at": at}
	if !reflect.DeepEqual(got["edit_history_summary"], want) {
		t.Errorf("invoice summary %v\nwant %v", got["edit_history_summary"], want)
	}
	wantLine := map[string]any{"values_changed": map[string]any{
		"amount_in_cents":  map[string]any{"original_value": 2000.0, "edited_value": 2500.0},
		"balance_transfer": map[string]any{"original_value": nil, "edited_value": true}},
		"latest_edit_author": author, "latest_edit_performed_at": at}
	if s := got["line_items"].([]any)[0].(map[string]any)["edit_history_summary"]; !reflect.DeepEqual(s, wantLine) {
		t.Errorf("line item summary %v\nwant %v", s, wantLine)
	}
	wantTx := map[string]any{"values_changed": map[string]any{"result": map[string]any{"original_value": "successful", "edited_value": "failed"}},
		"latest_edit_author": author, "latest_edit_performed_at": at}
	if s := got["transactions"].([]any)[0].(map[string]any)["edit_history_summary"]; !reflect.DeepEqual(s, wantTx) {
		t.Errorf("transaction summary %v\nwant %v", s, wantTx)
	}
	if _, ok := get(false)["edit_history_summary"]; ok {
		t.Error("summary shown without include_edit_histories")
	}
	// The standalone line item and the invoices listing show it too.
	_, standalone := b.Call("GetLineItem", map[string]string{"line_item_uuid": li["uuid"].(string)},
		map[string][]string{"include_edit_histories": {"true"}}, nil)
	if !reflect.DeepEqual(standalone["edit_history_summary"], wantLine) {
		t.Errorf("standalone line item %v", standalone)
	}
	_, list := b.Call("ListInvoices", nil,
		map[string][]string{"validation_type": {"invalid"}, "include_edit_histories": {"true"}, "with_disabled": {"false"}}, nil)
	if list["invoices"] == nil {
		t.Errorf("listing as chartmogul-python asks it: %v", list)
	}

	// handle_as_user_edit=true: the records added are user-created.
	status, added := b.Call("CreateInvoiceLineItem",
		map[string]string{"invoice_uuid": uuid}, map[string][]string{"handle_as_user_edit": {"true"}},
		map[string]any{"type": "one_time", "amount_in_cents": 300, "description": "fee"})
	if status != http.StatusCreated || added["user_created"] != true {
		t.Errorf("added as a user edit: %d %v", status, added)
	}
	// A transaction's answer has user_created only when it is: ChartMogul's recorded
	// answer to a plain add has no such key.
	for _, flag := range []string{"true", "false"} {
		status, tr := b.Call("CreateInvoiceTransaction",
			map[string]string{"invoice_uuid": uuid}, map[string][]string{"handle_as_user_edit": {flag}},
			map[string]any{"type": "payment", "result": "failed", "date": "2024-01-20"})
		if got, shown := tr["user_created"]; status != http.StatusCreated || shown != (flag == "true") || (shown && got != true) {
			t.Errorf("transaction added with handle_as_user_edit=%s: %d %v", flag, status, tr)
		}
	}
	if status, got := b.Call("CreateInvoiceLineItem",
		map[string]string{"invoice_uuid": uuid}, map[string][]string{"handle_as_user_edit": {"maybe"}},
		map[string]any{"type": "one_time", "amount_in_cents": 300}); status != http.StatusBadRequest {
		t.Errorf("handle_as_user_edit=maybe: %d %v", status, got)
	}
}

// TestUpdateCustomerInvoicesAsUserEdit sends what chartmogul-ruby 4.14.0
// (lib/chartmogul/customer_invoices.rb, CustomerInvoices#update!) sends: PUT
// /v1/import/customers/:customer_uuid/invoices?handle_as_user_edit=true with the
// customer's invoices; it upserts them, answers 200 with them, records the changes of
// the invoice that existed as edits and marks the new one user-created.
func TestUpdateCustomerInvoicesAsUserEdit(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 2000, "successful"))
	jan := b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 2200, "successful")
	feb := b.MonthInvoice("feb", "s1", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 2200, "successful")
	status, got := b.Call("UpdateCustomerInvoices",
		map[string]string{"customer_uuid": b.F.Cust.UUID}, map[string][]string{"handle_as_user_edit": {"true"}},
		map[string]any{"invoices": []any{jan, feb}, "customer_uuid": b.F.Cust.UUID})
	invoices, _ := got["invoices"].([]any)
	if status != http.StatusOK || len(invoices) != 2 {
		t.Fatalf("update: %d %v", status, got)
	}
	first, second := invoices[0].(map[string]any), invoices[1].(map[string]any)
	if first["user_created"] != false || second["user_created"] != true ||
		second["line_items"].([]any)[0].(map[string]any)["user_created"] != true {
		t.Errorf("user_created: %v", invoices)
	}
	_, held := b.Call("GetInvoice", map[string]string{"invoice_uuid": first["uuid"].(string)},
		map[string][]string{"include_edit_histories": {"true"}}, nil)
	line := held["line_items"].([]any)[0].(map[string]any)
	want := map[string]any{"original_value": 2000.0, "edited_value": 2200.0}
	if s, _ := line["edit_history_summary"].(map[string]any); s == nil || !reflect.DeepEqual(s["values_changed"].(map[string]any)["amount_in_cents"], want) {
		t.Errorf("the edit of jan's line item: %v", line)
	}
	// Without the flag the same upsert is the source's data: no edit recorded.
	jan["line_items"].([]map[string]any)[0]["amount_in_cents"] = 2400
	b.Call("UpdateCustomerInvoices",
		map[string]string{"customer_uuid": b.F.Cust.UUID}, nil, map[string]any{"invoices": []any{jan}})
	_, held = b.Call("GetInvoice", map[string]string{"invoice_uuid": first["uuid"].(string)},
		map[string][]string{"include_edit_histories": {"true"}}, nil)
	line = held["line_items"].([]any)[0].(map[string]any)
	if line["amount_in_cents"] != 2400.0 || !reflect.DeepEqual(line["edit_history_summary"].(map[string]any)["values_changed"].(map[string]any)["amount_in_cents"], want) {
		t.Errorf("a source update changed the edit history: %v", line)
	}
}
