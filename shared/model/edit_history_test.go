package model

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestEditHistory: each edit keeps every changed field's first value and its latest
// one, a field edited back to its first value leaves the summary, an edit that changes
// nothing is no edit, and the latest edit names its author, time and operation.
func TestEditHistory(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2024, 1, 20, h, 0, 0, 0, time.UTC) }
	var u UserEdits
	if u.Summary() != nil {
		t.Fatal("a record never edited has no summary")
	}
	steps := []struct {
		before, after map[string]any
		changed       bool
		want          string // the summary as JSON
	}{
		{map[string]any{"currency": "EUR", "amount_in_cents": 4500}, map[string]any{"currency": "USD", "amount_in_cents": 4500}, true,
			`{"latest_edit_author":"a@example.com","latest_edit_performed_at":"2024-01-20T01:00:00.000Z",` +
				`"values_changed":{"currency":{"edited_value":"USD","original_value":"EUR"}}}`},
		{map[string]any{"currency": "USD"}, map[string]any{"currency": "USD"}, false, ""},
		{map[string]any{"currency": "USD", "amount_in_cents": 4500}, map[string]any{"currency": "GBP", "amount_in_cents": 5000}, true,
			`{"latest_edit_author":"a@example.com","latest_edit_performed_at":"2024-01-20T03:00:00.000Z",` +
				`"values_changed":{"amount_in_cents":{"edited_value":5000,"original_value":4500},` +
				`"currency":{"edited_value":"GBP","original_value":"EUR"}}}`},
		{map[string]any{"currency": "GBP"}, map[string]any{"currency": "EUR"}, true,
			`{"latest_edit_author":"a@example.com","latest_edit_performed_at":"2024-01-20T04:00:00.000Z",` +
				`"values_changed":{"amount_in_cents":{"edited_value":5000,"original_value":4500}}}`},
	}
	for i, s := range steps {
		changed := u.Record(Edit{Before: s.before, After: s.after, Author: "a@example.com", At: at(i + 1), Path: "PATCH /v1/invoices/{invoice_uuid}"})
		if changed != s.changed {
			t.Fatalf("step %d: changed = %v", i, changed)
		}
		if !changed {
			continue
		}
		got, err := json.Marshal(u.Summary())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != s.want {
			t.Errorf("step %d:\n got %s\nwant %s", i, got, s.want)
		}
	}
	if u.EditHistory.Path != "PATCH /v1/invoices/{invoice_uuid}" {
		t.Errorf("path = %q", u.EditHistory.Path)
	}
}

// TestUpsertKeepsUserEdits: an import that replaces a line item keeps the user edits
// it does not bring.
func TestUpsertKeepsUserEdits(t *testing.T) {
	edits := UserEdits{UserCreated: true, EditHistory: &EditHistory{Author: "a@example.com"}}
	inv := Invoice{LineItems: []LineItem{{Key: "x:1", UserEdits: edits}}, Transactions: []Transaction{{Key: "x:t", UserEdits: edits}}}
	inv.UpsertLineItem(LineItem{Key: "x:1", LineItemFields: LineItemFields{AmountInCents: 5}})
	inv.UpsertTransaction(Transaction{Key: "x:t"})
	if !reflect.DeepEqual(inv.LineItems[0].UserEdits, edits) || !reflect.DeepEqual(inv.Transactions[0].UserEdits, edits) {
		t.Errorf("user edits lost: %+v %+v", inv.LineItems[0].UserEdits, inv.Transactions[0].UserEdits)
	}
	if inv.LineItems[0].AmountInCents != 5 {
		t.Error("the import's fields replace the stored ones")
	}
}
