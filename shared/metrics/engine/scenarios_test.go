package engine

import (
	"testing"
)

// TestAcceptanceScenarios covers the example scenarios of the rules (docs/metrics-engine.md).
func TestAcceptanceScenarios(t *testing.T) {
	paid := func(inv Invoice, date string) Invoice {
		inv.Transactions = append(inv.Transactions, Transaction{Type: TransactionPayment, Result: ResultSuccessful, Date: at(date)})
		return inv
	}
	refunded := func(inv Invoice) Invoice {
		inv.Transactions = append(inv.Transactions, Transaction{Type: TransactionRefund, Result: ResultSuccessful, Date: inv.Date.AddDate(0, 0, 3)})
		return inv
	}
	tests := []struct {
		name string
		in   Input
		want want
	}{
		{"monthly plan, three renewals at the same price", input("2024-03-15", monthlyInvoices(monthly, "2024-01-01", 3, 1000)...),
			want{mrr: 1000, arr: 12000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"annual plan 200000 -> 16667", input("2024-06-01", invoice("a", "2024-01-01", item(annual, "2024-01-01", "2025-01-01", 200000))),
			want{mrr: 16667, arr: 200004, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 16667 16667"}}},
		{"quarterly plan 9000 -> 3000", input("2024-02-01", invoice("q", "2024-01-01", item(quarterly, "2024-01-01", "2024-04-01", 9000))),
			want{mrr: 3000, arr: 36000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 3000 3000"}}},
		{"7-day plan 1000 -> 4348, arr 52176", input("2024-01-03", invoice("w", "2024-01-01", item(weekly, "2024-01-01", "2024-01-08", 1000))),
			want{mrr: 4348, arr: 52176, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 4348 4348"}}},
		{"quantity change is an expansion of the amount, quantity is a count", input("2024-02-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			invoice("2", "2024-02-01", withQuantity(item(monthly, "2024-02-01", "2024-03-01", 2000), 2))),
			want{mrr: 2000, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 1000 1000", "2024-02-01 expansion 1000 2000"}}},
		{"prorated upgrade mid-period (differential)", input("2024-06-20",
			invoice("1", "2024-06-01", item(monthly, "2024-06-01", "2024-07-01", 5000)),
			invoice("2", "2024-06-16", prorated(item(gold, "2024-06-16", "2024-07-01", 2500), ProrationDifferential))),
			want{mrr: 10000, status: StatusActive, since: "2024-06-01",
				moves: []string{"2024-06-01 new_biz 5000 5000", "2024-06-16 expansion 5000 10000"}}},
		{"downgrade at renewal", input("2024-02-10",
			invoice("1", "2024-01-01", item(gold, "2024-01-01", "2024-02-01", 5000)),
			invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 3000))),
			want{mrr: 3000, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 5000 5000", "2024-02-01 contraction -2000 3000"}}},
		{"cancellation and reactivation", withHistory(input("2024-05-10",
			append(monthlyInvoices(monthly, "2024-01-01", 2, 1000), invoice("r", "2024-05-01", item(monthly, "2024-05-01", "2024-06-01", 1200)))...),
			"sub", "2024-03-01"),
			want{mrr: 1200, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-03-01 churn -1000 0", "2024-05-01 reactivation 1200 1200"}}},
		{"cancellation leaves the customer Cancelled", withHistory(input("2024-04-01", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			"sub", "2024-03-01"),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-03-01 churn -1000 0"}}},
		{"failed payment past due date: Past Due, MRR kept", input("2024-02-10",
			paid(invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)), "2024-01-01"),
			failed(withDue(invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1000)), "2024-02-08"), "2024-02-01")),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"failed payment before its due date: still Active", input("2024-02-05",
			failed(withDue(invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1000)), "2024-02-08"), "2024-02-01")),
			want{mrr: 1000, status: StatusActive, since: "2024-02-01", moves: []string{"2024-02-01 new_biz 1000 1000"}}},
		{"full refund with refund_full_only: never paid, stays a lead", withSettings(input("2024-01-10",
			refunded(invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)))), func(s *Settings) { s.RefundHandling = RefundFullOnly }),
			want{mrr: 0, status: StatusLead}},
		{"full refund with refund_ignore still counts", input("2024-01-10",
			refunded(invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"trial then paid: new business at the first paid period", input("2024-01-20",
			invoice("t", "2024-01-01", trial(item(monthly, "2024-01-01", "2024-01-15", 0))),
			invoice("p", "2024-01-15", item(monthly, "2024-01-15", "2024-02-15", 1000))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-15", moves: []string{"2024-01-15 new_biz 1000 1000"}}},
		{"trial only: a lead", input("2024-01-10", invoice("t", "2024-01-01", trial(item(monthly, "2024-01-01", "2024-01-15", 0)))),
			want{mrr: 0, status: StatusLead}},
		{"discount and tax: amount net of discount, tax removed", input("2024-01-10",
			invoice("1", "2024-01-01", withTax(item(monthly, "2024-01-01", "2024-02-01", 1100), 100, 500))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"gap in service periods: no churn, Past Due during the gap", input("2024-02-15",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			invoice("3", "2024-03-01", item(monthly, "2024-03-01", "2024-04-01", 1000))),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"gap closed: Active again", input("2024-03-15",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			invoice("3", "2024-03-01", item(monthly, "2024-03-01", "2024-04-01", 1000))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		// The fixture's only period ended long before the invoice date, so the
		// subscription is past due (no renewal), still counting its MRR.
		{"foreign currency: EUR 10000 at the 2017-05-01 rate -> 10908 (§5 fixture)", fx(input("2018-12-20",
			eur(invoice("1", "2018-12-18", item(monthly, "2017-05-01", "2017-05-31", 10000)))), "2017-05-01", 1.090861),
			want{mrr: 10908, arr: 130896, status: StatusPastDue, since: "2017-05-01", moves: []string{"2017-05-01 new_biz 10908 10908"}}},
		{"foreign currency: EUR 11000 -> 11999 (§5 fixture)", fx(input("2023-08-26",
			eur(invoice("1", "2023-08-25", item(monthly, "2017-05-01", "2017-05-31", 11000)))), "2017-05-01", 1.090861),
			want{mrr: 11999, arr: 143988, status: StatusPastDue, since: "2017-05-01", moves: []string{"2017-05-01 new_biz 11999 11999"}}},
		{"foreign currency without a rate: invoice invalid, not guessed", input("2018-12-20",
			eur(invoice("1", "2018-12-18", item(monthly, "2017-05-01", "2017-05-31", 10000)))),
			want{mrr: 0, status: StatusLead}},
		{"scheduled cancellation, before it takes effect", withEvents(input("2024-02-10", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			event("e1", EventCancellationScheduled, "2024-02-05", "2024-03-01")),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-03-01 churn -1000 0 scheduled"}}},
		{"scheduled cancellation, after it takes effect", withEvents(input("2024-03-02", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			event("e1", EventCancellationScheduled, "2024-02-05", "2024-03-01")),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-03-01 churn -1000 0"}}},
		{"scheduled cancellation retracted", withEvents(input("2024-03-02", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			event("e1", EventCancellationScheduled, "2024-02-05", "2024-03-01"),
			event("e2", EventCancellationRetracted, "2024-02-07", "2024-02-07")),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"one-time items only: a lead", input("2024-01-10", invoice("1", "2024-01-01",
			LineItem{Type: ItemOneTime, AmountInCents: 50000, Quantity: 1})),
			want{mrr: 0, status: StatusLead}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { check(t, Compute(tt.in), tt.want) })
	}
}

func TestForeignCurrencyInvalidInvoiceReason(t *testing.T) {
	r := Compute(input("2018-12-20", eur(invoice("1", "2018-12-18", item(monthly, "2017-05-01", "2017-05-31", 10000)))))
	if len(r.InvalidInvoices) != 1 || r.InvalidInvoices[0].Reason != "missing exchange rate EUR to USD on 2017-05-01" {
		t.Fatalf("invalid invoices = %+v", r.InvalidInvoices)
	}
}

// TestMigrationMergeThenConnect: after a merge one customer holds the old source's
// subscription (cancelled) and the new source's; connecting them leaves only the real change.
func TestMigrationMergeThenConnect(t *testing.T) {
	old := monthlyInvoices(monthly, "2024-01-01", 3, 2000)
	moved := invoice("n1", "2024-04-10", onSub(item(gold, "2024-04-10", "2024-05-10", 2200), "new"))
	moved.DataSourceUUID = "ds_2"
	in := withHistory(input("2024-04-20", append(old, moved)...), "sub", "2024-04-01")

	merged := Compute(in)
	check(t, merged, want{mrr: 2200, status: StatusActive, since: "2024-01-01", moves: []string{
		"2024-01-01 new_biz 2000 2000", "2024-04-01 churn -2000 0", "2024-04-10 reactivation 2200 2200"}})

	in.Connections = []Connection{{SubscriptionUUIDs: [2]string{"sub_uuid", "new_uuid"}}}
	connected := Compute(in)
	check(t, connected, want{mrr: 2200, status: StatusActive, since: "2024-01-01", moves: []string{
		"2024-01-01 new_biz 2000 2000", "2024-04-10 expansion 200 2200"}})
	if len(connected.Subscriptions) != 1 {
		t.Fatalf("subscriptions = %+v, want only the primary", connected.Subscriptions)
	}
	s := connected.Subscriptions[0]
	if s.UUID != "new_uuid" || !s.StartDate.Equal(at("2024-01-01")) || s.MRR != 2200 || s.Status != SubscriptionActive ||
		len(s.ConnectedUUIDs) != 1 || s.ConnectedUUIDs[0] != "sub_uuid" || s.DataSourceUUID != "ds_2" {
		t.Fatalf("primary = %+v", s)
	}
	if connected.Movements[1].Description != "upgraded from the Silver plan to the Gold plan" {
		t.Errorf("description = %q", connected.Movements[1].Description)
	}
}

func TestConnectionIgnoredWhenNeitherCancelled(t *testing.T) {
	a := monthlyInvoices(monthly, "2024-01-01", 2, 1000)
	b := invoice("b", "2024-01-15", onSub(item(monthly, "2024-01-15", "2024-02-15", 500), "other"))
	in := input("2024-01-20", append(a, b)...)
	in.Connections = []Connection{{SubscriptionUUIDs: [2]string{"sub_uuid", "other_uuid"}}}
	r := Compute(in)
	if len(r.Subscriptions) != 2 || r.MRR != 1500 {
		t.Fatalf("connection of two live subscriptions applied: %+v", r.Subscriptions)
	}
}
