package engine

import (
	"reflect"
	"testing"
)

// TestRules covers the rules §1–§3 not already in the acceptance scenarios.
func TestRules(t *testing.T) {
	second := func(it LineItem) LineItem { return onSub(it, "b") }
	setOf := func(it LineItem, set string) LineItem { it.SubscriptionSetExternalID = set; return it }
	order := func(it LineItem, n int) LineItem { it.EventOrder = n; return it }
	status := func(inv Invoice, st string) Invoice { inv.Status = st; return inv }
	cancelledAt := func(it LineItem, when string) LineItem { it.CancelledAt = at(when); return it }
	tests := []struct {
		name string
		in   Input
		want want
	}{
		{"§1.3 open invoice counts as soon as issued, no transaction needed", input("2024-01-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§1.3 voided and written-off invoices are excluded", input("2024-02-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			status(invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 3000)), InvoiceVoided),
			status(invoice("3", "2024-02-01", item(gold, "2024-02-01", "2024-03-01", 5000)), InvoiceWrittenOff)),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§1.3 a $0 first item does not make a subscriber", input("2024-01-10",
			invoice("1", "2024-01-01", item(free, "2024-01-01", "2024-02-01", 0))),
			want{mrr: 0, status: StatusLead}},
		{"§1.5 two non-prorated items of one period on one invoice are summed", input("2024-01-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 600), item(monthly, "2024-01-01", "2024-02-01", 400))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§1.5 event_order: full then differential", input("2024-06-20",
			invoice("1", "2024-06-01", item(monthly, "2024-06-01", "2024-07-01", 1000)),
			invoice("2", "2024-06-16", order(prorated(item(gold, "2024-06-16", "2024-07-01", 1000), ProrationFull), 1),
				order(prorated(item(gold, "2024-06-16", "2024-07-01", 250), ProrationDifferential), 2))),
			want{mrr: 2500, status: StatusActive, since: "2024-06-01", moves: []string{"2024-06-01 new_biz 1000 1000", "2024-06-16 expansion 1500 2500"}}},
		{"§1.5 event_order: differential then full", input("2024-06-20",
			invoice("1", "2024-06-01", item(monthly, "2024-06-01", "2024-07-01", 1000)),
			invoice("2", "2024-06-16", order(prorated(item(gold, "2024-06-16", "2024-07-01", 1000), ProrationFull), 2),
				order(prorated(item(gold, "2024-06-16", "2024-07-01", 250), ProrationDifferential), 1))),
			want{mrr: 2000, status: StatusActive, since: "2024-06-01", moves: []string{"2024-06-01 new_biz 1000 1000", "2024-06-16 expansion 1000 2000"}}},
		{"§1.5 differential_mrr adds the amount without the proration factor", input("2024-06-20",
			invoice("1", "2024-06-01", item(monthly, "2024-06-01", "2024-07-01", 1000)),
			invoice("2", "2024-06-16", prorated(item(gold, "2024-06-16", "2024-07-01", 300), ProrationDifferentialMRR))),
			want{mrr: 1300, status: StatusActive, since: "2024-06-01", moves: []string{"2024-06-01 new_biz 1000 1000", "2024-06-16 expansion 300 1300"}}},
		{"§1.4 charge and credit at the same instant net into one movement", input("2024-06-20",
			invoice("1", "2024-06-01", item(monthly, "2024-06-01", "2024-07-01", 10000)),
			invoice("2", "2024-06-16", order(prorated(item(gold, "2024-06-16", "2024-07-01", 12500), ProrationDifferential), 1),
				order(prorated(item(monthly, "2024-06-16", "2024-07-01", -5000), ProrationDifferential), 2))),
			want{mrr: 25000, status: StatusActive, since: "2024-06-01", moves: []string{"2024-06-01 new_biz 10000 10000", "2024-06-16 expansion 15000 25000"}}},
		{"§1.5 a prorated credit alone is a contraction", input("2024-06-20",
			invoice("1", "2024-06-01", item(gold, "2024-06-01", "2024-07-01", 10000)),
			invoice("2", "2024-06-16", prorated(item(monthly, "2024-06-16", "2024-07-01", -2500), ProrationDifferential))),
			want{mrr: 5000, status: StatusActive, since: "2024-06-01", moves: []string{"2024-06-01 new_biz 10000 10000", "2024-06-16 contraction -5000 5000"}}},
		{"§1.5 a first prorated item starts the subscription", input("2024-06-20",
			invoice("1", "2024-06-16", prorated(item(monthly, "2024-06-16", "2024-07-01", 2500), ProrationDifferential))),
			want{mrr: 5000, status: StatusActive, since: "2024-06-16", moves: []string{"2024-06-16 new_biz 5000 5000"}}},
		{"§1.2 several subscriptions at once are new business each", input("2024-01-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000), second(item(gold, "2024-01-01", "2024-02-01", 500)))),
			want{mrr: 1500, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-01-01 new_biz 500 1500"}}},
		{"§1.6 cancelling one of two subscriptions is a contraction", withHistory(input("2024-02-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-03-01", 1000), second(item(gold, "2024-01-01", "2024-03-01", 500)))),
			"b", "2024-02-01"),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-01-01 new_biz 500 1500", "2024-02-01 contraction -500 1000"}}},
		{"§1.6 cancelled_at on a line item cancels", input("2024-02-10",
			invoice("1", "2024-01-01", cancelledAt(item(monthly, "2024-01-01", "2024-02-01", 1000), "2024-01-20"))),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-01-20 churn -1000 0"}}},
		{"§1.6 an empty cancellation_dates removes the cancellation", withHistory(input("2024-01-25",
			invoice("1", "2024-01-01", cancelledAt(item(monthly, "2024-01-01", "2024-02-01", 1000), "2024-01-20"))), "sub"),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§1.6 customer-since does not move on reactivation", withHistory(input("2024-06-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			invoice("2", "2024-06-01", item(monthly, "2024-06-01", "2024-07-01", 1000))), "sub", "2024-02-01"),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-02-01 churn -1000 0", "2024-06-01 reactivation 1000 1000"}}},
		{"§1.2 set members replacing each other are linked: one expansion", withHistory(input("2024-03-10",
			invoice("1", "2024-01-01", setOf(item(monthly, "2024-01-01", "2024-03-01", 1000), "S")),
			invoice("2", "2024-03-01", setOf(second(item(gold, "2024-03-01", "2024-04-01", 1500)), "S"))), "sub", "2024-03-01"),
			want{mrr: 1500, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-03-01 expansion 500 1500"}}},
		{"§1.2 without a set the same swap is churn then reactivation", withHistory(input("2024-03-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-03-01", 1000)),
			invoice("2", "2024-03-01", second(item(gold, "2024-03-01", "2024-04-01", 1500)))), "sub", "2024-03-01"),
			want{mrr: 1500, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-03-01 churn -1000 0", "2024-03-01 reactivation 1500 1500"}}},
		{"§1.5 keeps MRR after the last period: Past Due, not churned", input("2024-05-01",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§1.5 the same subscription switching plans is one movement", input("2024-02-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			invoice("2", "2024-02-01", item(gold, "2024-02-01", "2024-03-01", 1000))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§3.2 a partial refund never changes MRR", withSettings(input("2024-01-10",
			refund(invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)), 400)), func(s *Settings) { s.RefundHandling = RefundFullOnly }),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§3.2 refund_full_only: a refunded upgrade never happened", withSettings(input("2024-02-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			refund(invoice("2", "2024-02-01", item(gold, "2024-02-01", "2024-03-01", 3000)), 3000)), func(s *Settings) { s.RefundHandling = RefundFullOnly }),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§3.3 a successful retry ends the past-due state", input("2024-02-15",
			retry(failed(withDue(invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1000)), "2024-02-08"), "2024-02-01"), "2024-02-12")),
			want{mrr: 1000, status: StatusActive, since: "2024-02-01", moves: []string{"2024-02-01 new_biz 1000 1000"}}},
		{"§2 subscription_cancelled event churns at its effective date", withEvents(input("2024-02-10", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			event("e1", EventCancelled, "2024-02-05", "2024-02-05")),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-02-05 churn -1000 0"}}},
		{"§2 subscription_event_retracted withdraws the event it names", withEvents(input("2024-02-10", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			event("e1", EventCancelled, "2024-02-05", "2024-02-05"), retraction("e2", "e1", "2024-02-06")),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§2 an event the caller marks retracted is ignored", withEvents(input("2024-02-10", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			retracted(event("e1", EventCancelled, "2024-02-05", "2024-02-05"))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§2 a scheduled update is committed MRR only", withEvents(input("2024-02-10", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			priced(event("e1", EventUpdateScheduled, "2024-02-05", "2024-03-01"), gold, 3000)),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-03-01 expansion 2000 3000 scheduled"}}},
		{"§2 a retracted scheduled update disappears", withEvents(input("2024-02-10", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			priced(event("e1", EventUpdateScheduled, "2024-02-05", "2024-03-01"), gold, 3000),
			event("e2", EventUpdateRetracted, "2024-02-06", "2024-02-06")),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§2 a past subscription_updated has no MRR effect (A4)", withEvents(input("2024-02-10", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			priced(event("e1", EventUpdated, "2024-01-15", "2024-01-15"), gold, 3000)),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"§2 two cancellation events at one instant churn once", withEvents(input("2024-02-10", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...),
			event("e1", EventCancelled, "2024-02-05", "2024-02-05"), event("e2", EventCancelled, "2024-02-05", "2024-02-05")),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-02-05 churn -1000 0"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { check(t, Compute(tt.in), tt.want) })
	}
}

// TestSimultaneousPurchasesFixture reproduces §7: two purchases at the same
// instant of 4004 each in the account currency give activity-mrr 4004 then 8009 and
// activity-arr 48048 then 96108 (the total is truncated from the exact sum).
func TestSimultaneousPurchasesFixture(t *testing.T) {
	inv := eur(invoice("1", "2016-01-01T12:00", item(weekly, "2016-01-01T12:00", "2016-01-08T12:00", 1000),
		onSub(item(weekly, "2016-01-01T12:00", "2016-01-08T12:00", 1000), "b")))
	in := fx(input("2016-01-02", inv), "2016-01-01", 0.92102) // 4348 × 0.92102 = 4004.59
	r := Compute(in)
	check(t, r, want{mrr: 8009, arr: 96108, status: StatusActive, since: "2016-01-01", moves: []string{
		"2016-01-01T12:00 new_biz 4004 4004", "2016-01-01T12:00 new_biz 4004 8009"}})
	if got := 12 * r.Movements[0].CustomerMRR; got != 48048 {
		t.Errorf("activity-arr = %d, want 48048", got)
	}
	if r.Movements[0].Description != "purchased the Weekly plan" {
		t.Errorf("description = %q", r.Movements[0].Description)
	}
}

func TestInvalidInvoices(t *testing.T) {
	bad := item(monthly, "2024-01-01", "2024-02-01", 1000)
	bad.PlanUUID = "pl_missing"
	empty := item(monthly, "2024-01-01", "2024-01-01", 1000)
	noSub := item(monthly, "2024-01-01", "2024-02-01", 1000)
	noSub.SubscriptionExternalID = ""
	r := Compute(input("2024-01-10", invoice("a", "2024-01-01", bad), invoice("b", "2024-01-01", empty), invoice("c", "2024-01-01", noSub),
		invoice("d", "2024-01-01", prorated(item(monthly, "2024-01-01", "2024-02-01", 1), "weird"))))
	if len(r.InvalidInvoices) != 4 || r.Status != StatusLead {
		t.Fatalf("invalid = %+v, status %s", r.InvalidInvoices, r.Status)
	}
}

func TestSubscriptionView(t *testing.T) {
	in := input("2024-03-10", append(monthlyInvoices(monthly, "2024-01-01", 2, 1000),
		invoice("3", "2024-03-01", withQuantity(item(gold, "2024-03-01", "2024-04-01", 3000), 3)))...)
	in.Invoices[0].LineItems[0].SubscriptionSetExternalID = "S"
	r := Compute(in)
	if len(r.Subscriptions) != 1 {
		t.Fatalf("subscriptions = %+v", r.Subscriptions)
	}
	s := r.Subscriptions[0]
	wantSub := Subscription{UUID: "sub_uuid", ExternalID: "sub", SetExternalID: "S", DataSourceUUID: "ds_1", PlanUUID: "pl_g",
		Quantity: 3, MRR: 3000, ARR: 36000, Status: SubscriptionActive, BillingCycle: "month", BillingCycleCount: 1,
		StartDate: at("2024-01-01"), EndDate: at("2024-04-01"),
		MRRTimeline: []Point{{at("2024-01-01"), 1000}, {at("2024-03-01"), 3000}}}
	if !reflect.DeepEqual(s, wantSub) {
		t.Fatalf("subscription\n got %+v\nwant %+v", s, wantSub)
	}
	wantTimeline := []Point{{at("2024-01-01"), 1000}, {at("2024-03-01"), 3000}}
	if !reflect.DeepEqual(r.MRRTimeline, wantTimeline) {
		t.Fatalf("customer timeline = %+v", r.MRRTimeline)
	}
}

func TestCancelledSubscriptionView(t *testing.T) {
	r := Compute(withHistory(input("2024-04-01", monthlyInvoices(monthly, "2024-01-01", 2, 1000)...), "sub", "2024-02-15"))
	s := r.Subscriptions[0]
	if s.Status != SubscriptionInactive || s.MRR != 0 || !s.EndDate.Equal(at("2024-02-15")) ||
		len(s.CancellationDates) != 1 || !s.CancellationDates[0].Equal(at("2024-02-15")) {
		t.Fatalf("subscription = %+v", s)
	}
}

func TestDerivedUUIDIsStable(t *testing.T) {
	it := item(monthly, "2024-01-01", "2024-02-01", 1000)
	it.SubscriptionUUID = ""
	a := Compute(input("2024-01-10", invoice("1", "2024-01-01", it)))
	b := Compute(input("2024-01-10", invoice("1", "2024-01-01", it)))
	if a.Subscriptions[0].UUID == "" || a.Subscriptions[0].UUID != b.Subscriptions[0].UUID {
		t.Fatalf("uuids %q %q", a.Subscriptions[0].UUID, b.Subscriptions[0].UUID)
	}
}

// TestDeterministic: recomputing unchanged input gives an identical result, so the worker can
// skip writes.
func TestDeterministic(t *testing.T) {
	in := withEvents(withHistory(input("2024-09-10", benchInvoices(12)...), "sub", "2024-06-15"),
		priced(event("e1", EventUpdateScheduled, "2024-09-01", "2024-10-01"), gold, 3000))
	first := Compute(in)
	for range 5 {
		if again := Compute(in); !reflect.DeepEqual(first, again) {
			t.Fatal("results differ")
		}
	}
}
