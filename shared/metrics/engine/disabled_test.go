package engine

import (
	"reflect"
	"testing"
)

// TestDisabledRecords (§1.7): a disabled invoice, line item, transaction or subscription
// event gives exactly the result of the same input without it, and the same record
// enabled again gives exactly the result it had before (the input is then the original
// one). Each case checks that the record mattered, so the test fails if disabling
// stopped mattering.
func TestDisabledRecords(t *testing.T) {
	first := invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))
	upgrade := invoice("2", "2024-01-16", onSub(item(gold, "2024-01-16", "2024-02-16", 3000), "addon"))
	paidLate := failed(withDue(invoice("3", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1000)), "2024-02-05"), "2024-02-01")
	cancel := event("9", EventCancelled, "2024-01-20", "2024-01-20")
	cancel.SubscriptionUUID = "sub_uuid"

	tests := []struct {
		name    string
		in      Input
		disable func(*Input)
		without func(*Input)
	}{
		{"an invoice with its line items and transactions", input("2024-01-20", first, upgrade),
			func(in *Input) { in.Invoices[1].Disabled = true },
			func(in *Input) { in.Invoices = in.Invoices[:1] }},
		{"the customer's only invoice: a lead again", input("2024-01-20", first),
			func(in *Input) { in.Invoices[0].Disabled = true },
			func(in *Input) { in.Invoices = nil }},
		{"one line item of two", input("2024-01-20",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000), onSub(item(gold, "2024-01-01", "2024-02-01", 3000), "addon"))),
			func(in *Input) { in.Invoices[0].LineItems[1].Disabled = true },
			func(in *Input) { in.Invoices[0].LineItems = in.Invoices[0].LineItems[:1] }},
		{"a failed payment: no longer past due", input("2024-02-10", first, paidLate),
			func(in *Input) { in.Invoices[1].Transactions[0].Disabled = true },
			func(in *Input) { in.Invoices[1].Transactions = nil }},
		{"a cancellation event", withEvents(input("2024-01-25", first), cancel),
			func(in *Input) { in.Events[0].Disabled = true },
			func(in *Input) { in.Events = nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			original := Compute(clone(tc.in))
			disabled := clone(tc.in)
			tc.disable(&disabled)
			without := clone(tc.in)
			tc.without(&without)
			got, want := Compute(disabled), Compute(without)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("disabled:\n%+v\nwant the result without the record:\n%+v", got, want)
			}
			if reflect.DeepEqual(got, original) {
				t.Fatalf("disabling changed nothing (%+v): the case does not test the rule", got)
			}
			if again := Compute(clone(tc.in)); !reflect.DeepEqual(again, original) {
				t.Errorf("enabled again:\n%+v\nwant the original result:\n%+v", again, original)
			}
		})
	}
}

// clone copies the invoices and events a case changes.
func clone(in Input) Input {
	out := in
	out.Invoices = make([]Invoice, len(in.Invoices))
	for i, inv := range in.Invoices {
		inv.LineItems = append([]LineItem(nil), inv.LineItems...)
		inv.Transactions = append([]Transaction(nil), inv.Transactions...)
		out.Invoices[i] = inv
	}
	out.Events = append([]SubscriptionEvent(nil), in.Events...)
	return out
}
