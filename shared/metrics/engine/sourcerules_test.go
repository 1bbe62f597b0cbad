package engine

import "testing"

// stripeDefaults are ChartMogul's invoice rules for a Stripe source: create when paid,
// update when issued, voided and written-off invoices prevented.
func stripeDefaults() SourceRules {
	r := InvoiceRules{CreateWhen: PaymentPaid, UpdateWhen: PaymentOpen, PreventVoided: true, PreventWrittenOff: true}
	return SourceRules{Automatic: r, Manual: r}
}

// withRules gives data source ds_1 its own rules: the defaults changed by f.
func withRules(in Input, f func(*SourceRules)) Input {
	r := stripeDefaults()
	f(&r)
	in.Sources = map[string]SourceRules{"ds_1": r}
	return in
}

func defaultRules(*SourceRules) {}

func createWhen(state string) func(*SourceRules) {
	return func(r *SourceRules) { r.Automatic.CreateWhen = state }
}

func paidIn(inv Invoice, date string, amount int64) Invoice {
	inv.Transactions = append(inv.Transactions, Transaction{Type: TransactionPayment, Result: ResultSuccessful, Date: at(date), AmountInCents: &amount})
	return inv
}

// paid is the invoice paid in full on its date by a payment without an amount.
func paid(inv Invoice) Invoice {
	inv.Transactions = append(inv.Transactions, Transaction{Type: TransactionPayment, Result: ResultSuccessful, Date: inv.Date})
	return inv
}

func withStatus(inv Invoice, st string) Invoice { inv.Status = st; return inv }

func manual(inv Invoice) Invoice { inv.CollectionMethod = CollectionManual; return inv }

// TestSourceRules: a data source's own rules (§1.8) decide when its invoices count, and
// override the account's refund handling and churn recognition for it; other sources
// compute as before. Each rule has a twin where it does not apply.
func TestSourceRules(t *testing.T) {
	first := invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))
	renewal := invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1500))
	returning := invoice("3", "2024-03-01", item(monthly, "2024-03-01", "2024-04-01", 1000))
	trialInvoice := invoice("t", "2024-01-01", trial(item(monthly, "2024-01-01", "2024-01-15", 0)))
	conversion := invoice("c", "2024-01-15", item(monthly, "2024-01-15", "2024-02-15", 1000))
	cancelled := event("e1", EventCancelled, "2024-01-15", "2024-01-15")
	scheduled := event("e2", EventCancellationScheduled, "2024-01-10", "2024-02-01")
	newBiz := "2024-01-01 new_biz 1000 1000"
	lead := want{status: StatusLead}
	active := want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{newBiz}}
	tests := []struct {
		name string
		in   Input
		want want
	}{
		// Invoice handling: starting a subscription.
		{"create when paid: an open first invoice leaves a lead", withRules(input("2024-01-10", first), defaultRules), lead},
		{"create when paid: paid later, MRR from the period start",
			withRules(input("2024-01-25", paidIn(first, "2024-01-20", 1000)), defaultRules), active},
		{"create when paid: a payment without an amount pays it all", withRules(input("2024-01-10", paid(first)), defaultRules), active},
		{"create when paid: partially paid is not enough",
			withRules(input("2024-01-10", paidIn(first, "2024-01-05", 400)), defaultRules), lead},
		{"create when partially paid: partially paid counts",
			withRules(input("2024-01-10", paidIn(first, "2024-01-05", 400)), createWhen(PaymentPartiallyPaid)), active},
		{"create when partially paid: open does not", withRules(input("2024-01-10", first), createWhen(PaymentPartiallyPaid)), lead},
		{"create when open: issued counts", withRules(input("2024-01-10", first), createWhen(PaymentOpen)), active},
		{"manual collection follows the manual rules",
			withRules(input("2024-01-10", manual(first)), func(r *SourceRules) { r.Manual.CreateWhen = PaymentOpen }), active},
		{"automatic collection does not follow the manual rules",
			withRules(input("2024-01-10", first), func(r *SourceRules) { r.Manual.CreateWhen = PaymentOpen }), lead},
		{"an unpaid first invoice, a paid second: the second starts the subscription",
			withRules(input("2024-02-10", first, paid(renewal)), defaultRules),
			want{mrr: 1500, status: StatusActive, since: "2024-02-01", moves: []string{"2024-02-01 new_biz 1500 1500"}}},
		{"a $0 trial invoice counts as paid, an open conversion does not start",
			withRules(input("2024-01-20", trialInvoice, conversion), defaultRules), lead},
		{"a $0 trial invoice, then a paid conversion",
			withRules(input("2024-01-20", trialInvoice, paid(conversion)), defaultRules),
			want{mrr: 1000, status: StatusActive, since: "2024-01-15", moves: []string{"2024-01-15 new_biz 1000 1000"}}},

		// Invoice handling: updating a live subscription.
		{"update when open: an unpaid renewal counts", withRules(input("2024-02-10", paid(first), renewal), defaultRules),
			want{mrr: 1500, status: StatusActive, since: "2024-01-01", moves: []string{newBiz, "2024-02-01 expansion 500 1500"}}},
		{"update when paid: an unpaid renewal keeps the last counted MRR, past due",
			withRules(input("2024-02-10", paid(first), renewal), func(r *SourceRules) { r.Automatic.UpdateWhen = PaymentPaid }),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{newBiz}}},
		{"update when paid: a paid renewal counts",
			withRules(input("2024-02-10", paid(first), paid(renewal)), func(r *SourceRules) { r.Automatic.UpdateWhen = PaymentPaid }),
			want{mrr: 1500, status: StatusActive, since: "2024-01-01", moves: []string{newBiz, "2024-02-01 expansion 500 1500"}}},
		{"a return after a cancellation is a start: open, it waits",
			withRules(withEvents(input("2024-03-10", paid(first), returning), cancelled), defaultRules),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{newBiz, "2024-01-15 churn -1000 0"}}},
		{"a return after a cancellation is a start: paid, a reactivation",
			withRules(withEvents(input("2024-03-10", paid(first), paid(returning)), cancelled), defaultRules),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{newBiz, "2024-01-15 churn -1000 0", "2024-03-01 reactivation 1000 1000"}}},

		// Voided and written-off invoices.
		{"voided first invoice, prevented: a lead",
			withRules(input("2024-01-10", withStatus(first, InvoiceVoided)), createWhen(PaymentOpen)), lead},
		{"voided first invoice, not prevented: counts as issued",
			withRules(input("2024-01-10", withStatus(first, InvoiceVoided)), func(r *SourceRules) {
				r.Automatic.CreateWhen, r.Automatic.PreventVoided = PaymentOpen, false
			}), active},
		{"voided first invoice, not prevented, create when paid: unpaid, a lead",
			withRules(input("2024-01-10", withStatus(first, InvoiceVoided)), func(r *SourceRules) { r.Automatic.PreventVoided = false }), lead},
		{"written-off renewal, prevented: not extended, past due",
			withRules(input("2024-02-10", paid(first), withStatus(renewal, InvoiceWrittenOff)), defaultRules),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{newBiz}}},
		{"written-off renewal, not prevented: counts as issued",
			withRules(input("2024-02-10", paid(first), withStatus(renewal, InvoiceWrittenOff)), func(r *SourceRules) { r.Automatic.PreventWrittenOff = false }),
			want{mrr: 1500, status: StatusActive, since: "2024-01-01", moves: []string{newBiz, "2024-02-01 expansion 500 1500"}}},

		// Refund handling.
		{"source refund_full_only: a fully refunded invoice never counted",
			withRules(input("2024-01-10", refund(paid(first), 1000)), func(r *SourceRules) { r.RefundHandling = RefundFullOnly }), lead},
		{"source refund handling empty: the account's refund_full_only",
			withSettings(withRules(input("2024-01-10", refund(paid(first), 1000)), defaultRules), func(s *Settings) { s.RefundHandling = RefundFullOnly }), lead},
		{"source refund_ignore over the account's refund_full_only",
			withSettings(withRules(input("2024-01-10", refund(paid(first), 1000)), func(r *SourceRules) { r.RefundHandling = RefundIgnore }),
				func(s *Settings) { s.RefundHandling = RefundFullOnly }), active},
		{"source refund_full_only: a partial refund changes nothing",
			withRules(input("2024-01-10", refund(paid(first), 400)), func(r *SourceRules) { r.RefundHandling = RefundFullOnly }), active},

		// Churn recognition.
		{"source churn_at_period_end over the account's time of cancellation",
			withRules(withEvents(input("2024-02-10", paid(first)), cancelled), func(r *SourceRules) { r.ChurnRecognition = ChurnAtPeriodEnd }),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{newBiz, "2024-02-01 churn -1000 0"}}},
		{"source churn recognition empty: the account's",
			withRules(withEvents(input("2024-02-10", paid(first)), cancelled), defaultRules),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{newBiz, "2024-01-15 churn -1000 0"}}},
		{"churn_at_click: a scheduled cancellation churns when decided",
			withRules(withEvents(input("2024-01-20", paid(first)), scheduled), func(r *SourceRules) { r.ChurnRecognition = ChurnAtClick }),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{newBiz, "2024-01-10 churn -1000 0"}}},
		{"churn_at_click: a retracted scheduled cancellation churns nothing",
			withRules(withEvents(input("2024-01-20", paid(first)), scheduled, event("e3", EventCancellationRetracted, "2024-01-12", "2024-01-12")),
				func(r *SourceRules) { r.ChurnRecognition = ChurnAtClick }), active},
		{"churn_at_click: a cancellation decided before it ended churns when decided",
			withRules(withEvents(input("2024-02-10", paid(first)), event("e4", EventCancelled, "2024-01-10", "2024-02-01")),
				func(r *SourceRules) { r.ChurnRecognition = ChurnAtClick }),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{newBiz, "2024-01-10 churn -1000 0"}}},
		{"the account's churn_at_click, a source without rules: at the effective date",
			withSettings(withEvents(input("2024-02-10", first), scheduled), recognition(ChurnAtClick)),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{newBiz, "2024-02-01 churn -1000 0"}}},

		// Other sources.
		{"a source without rules: an open first invoice counts", input("2024-01-10", first), active},
		{"another source's rules leave this one alone", func() Input {
			in := input("2024-01-10", withStatus(first, InvoiceVoided), invoice("x", "2024-01-01", onSub(item(monthly, "2024-01-01", "2024-02-01", 700), "b")))
			in.Sources = map[string]SourceRules{"ds_2": {Automatic: InvoiceRules{CreateWhen: PaymentPaid}}}
			return in
		}(), want{mrr: 700, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 700 700"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, Compute(tt.in), tt.want)
		})
	}
}
