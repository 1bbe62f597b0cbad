package stripesync_test

import (
	"slices"
	"testing"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
)

// uncollectibleThenPaid is a first invoice of $50 finalized Feb 1, marked uncollectible
// Feb 20 and paid Mar 5 (paid is false: it stays uncollectible).
func uncollectibleThenPaid(paid bool) []stripe.Event {
	var h history
	h.subscribe("2026-02-01", []*stripe.Price{priceM})
	line := stripetest.SubLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-02-01", "2026-03-01")
	open := stripetest.OpenInvoice("in_1", "2026-02-01", line)
	h.add(stripe.EventTypeInvoiceFinalized, "2026-02-01", open, nil)
	bad := *open
	transitions := *open.StatusTransitions
	transitions.MarkedUncollectibleAt = day("2026-02-20")
	bad.Status, bad.StatusTransitions = stripe.InvoiceStatusUncollectible, &transitions
	h.add(stripe.EventTypeInvoiceMarkedUncollectible, "2026-02-20", &bad, nil)
	if paid {
		inv := bad
		paidTransitions := transitions
		paidTransitions.PaidAt = day("2026-03-05")
		inv.Status, inv.StatusTransitions, inv.AmountPaid, inv.AmountRemaining = stripe.InvoiceStatusPaid, &paidTransitions, 5000, 0
		inv.Payments = &stripe.InvoicePaymentList{Data: []*stripe.InvoicePayment{{ID: "inpay_in_1", AmountPaid: 5000, Currency: "usd",
			Status: "paid", StatusTransitions: &stripe.InvoicePaymentStatusTransitions{PaidAt: day("2026-03-05")},
			Payment: &stripe.InvoicePaymentPayment{Type: "payment_intent", PaymentIntent: &stripe.PaymentIntent{ID: "pi_in_1"}}}}}
		h.add(stripe.EventTypeInvoicePaid, "2026-03-05", &inv, nil)
	}
	return h.events
}

// TestUncollectibleThenPaid: an invoice paid after it was marked uncollectible counts
// again, whichever of the two snapshots arrives last; one left uncollectible stays
// written off; void wins over both.
func TestUncollectibleThenPaid(t *testing.T) {
	paid := uncollectibleThenPaid(true)
	n := len(paid)
	lateUncollectible := append(slices.Clone(paid[:n-2]), paid[n-1], paid[n-2])
	// A plain history of the same invoice, paid on Mar 5 and never uncollectible.
	plain := slices.Clone(paid)
	plain = append(plain[:n-2], plain[n-1])

	voided := uncollectibleThenPaid(false)
	last := voided[len(voided)-1]
	var inv stripe.Invoice
	if err := stripesource.Object(last, &inv); err != nil {
		t.Fatal(err)
	}
	inv.Status = stripe.InvoiceStatusVoid
	inv.StatusTransitions.VoidedAt = day("2026-03-01")
	void := stripetest.Event("evt_void", stripe.EventTypeInvoiceVoided, day("2026-03-01"), &inv, nil)

	cases := []struct {
		name   string
		events []stripe.Event
		status string
	}{
		{"never uncollectible", plain, ""},
		{"uncollectible then paid", paid, ""},
		{"paid, then the older uncollectible", lateUncollectible, ""},
		{"uncollectible", voided, model.InvoiceWrittenOff},
		{"uncollectible then void", append(slices.Clone(voided), void), model.InvoiceVoided},
		{"void, then the older uncollectible", append(slices.Clone(voided[:len(voided)-1]), void, last), model.InvoiceVoided},
	}
	mrr := map[string][]int64{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			conn := connect(t, env, "uncollectible")
			if err := deliver(newSync(env.Deps), conn, c.events); err != nil {
				t.Fatal(err)
			}
			drain(t, env)
			if got := invoice(t, env, conn, "in_1").Status; got != c.status {
				t.Errorf("status %q, want %q", got, c.status)
			}
			for _, on := range []string{"2026-02-15", "2026-03-10"} {
				mrr[c.name] = append(mrr[c.name], mrrOn(t, env, conn.AccountID, on))
			}
		})
	}
	for _, c := range cases[1:3] {
		if !slices.Equal(mrr[c.name], mrr["never uncollectible"]) || mrr[c.name][1] != 5000 {
			t.Errorf("%s: MRR %v, want that of an invoice never uncollectible %v", c.name, mrr[c.name], mrr["never uncollectible"])
		}
	}
	for _, c := range cases[3:] {
		if mrr[c.name][0] != 0 || mrr[c.name][1] != 0 {
			t.Errorf("%s: MRR %v, want none", c.name, mrr[c.name])
		}
	}
}

// TestPendingRefunds: a pending refund is not a transaction yet; once it succeeds it is
// a successful refund, once it fails a failed one, whatever order the snapshots arrive
// in; a refund that failed after it succeeded is failed.
func TestPendingRefunds(t *testing.T) {
	var h history
	h.subscribe("2026-01-01", []*stripe.Price{priceM})
	h.monthly("2026-01-01", 1, "price_m", 5000)
	base := h.events
	refund := func(id string, status stripe.RefundStatus, on string, n int) stripe.Event {
		r := &stripe.Refund{ID: id, Object: "refund", Amount: 5000, Currency: "usd", Status: status, Created: day("2026-01-15"),
			PaymentIntent: &stripe.PaymentIntent{ID: "pi_in_2026-01-01"}}
		kind := stripe.EventTypeRefundUpdated
		switch status {
		case stripe.RefundStatusPending:
			kind = stripe.EventTypeRefundCreated
		case stripe.RefundStatusFailed:
			kind = stripe.EventTypeRefundFailed
		}
		return stripetest.Event(id+"_"+string(status), kind, day(on)+int64(n), r, nil)
	}
	pending := refund("re_1", stripe.RefundStatusPending, "2026-01-15", 0)
	succeeded := refund("re_1", stripe.RefundStatusSucceeded, "2026-01-16", 0)
	failed := refund("re_1", stripe.RefundStatusFailed, "2026-01-20", 0)
	cases := []struct {
		name   string
		events []stripe.Event
		want   string // the refund's result, "" for no transaction
	}{
		{"pending", []stripe.Event{pending}, ""},
		{"pending then succeeded", []stripe.Event{pending, succeeded}, "successful"},
		{"succeeded, then the older pending", []stripe.Event{succeeded, pending}, "successful"},
		{"pending then failed", []stripe.Event{pending, failed}, "failed"},
		{"failed, then the older pending", []stripe.Event{failed, pending}, "failed"},
		{"succeeded then failed", []stripe.Event{pending, succeeded, failed}, "failed"},
		{"failed, then the older succeeded", []stripe.Event{pending, failed, succeeded}, "failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			conn := connect(t, env, "refunds")
			if err := deliver(newSync(env.Deps), conn, append(slices.Clone(base), c.events...)); err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, tr := range invoice(t, env, conn, "in_2026-01-01").Transactions {
				if tr.ExternalID == "re_1" {
					if tr.Type != "refund" || tr.AmountInCents == nil || *tr.AmountInCents != 5000 || !tr.Date.Equal(stripetest.At("2026-01-15")) {
						t.Errorf("refund %+v", tr)
					}
					got = tr.Result
				}
			}
			if got != c.want {
				t.Errorf("refund result %q, want %q", got, c.want)
			}
		})
	}
}
