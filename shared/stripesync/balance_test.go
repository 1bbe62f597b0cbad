package stripesync_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/stripesource/stripetest"
)

// owingCustomer: cus_1 subscribes on April 1st at $50 a month while owing $3 from before
// (Stripe's starting_balance 300): the first invoice's amount due is $53, paid by one
// invoice payment. Stripe sends the invoice payment on its own and invoice.paid without
// its payments. The history ends with the invoice's three events, also returned apart
// to be reordered.
func owingCustomer() (h *history, finalized, payment, paid stripe.Event) {
	h = &history{}
	h.subscribe("2026-04-01", []*stripe.Price{priceM})
	inv := stripetest.PaidInvoice("in_1", "2026-04-01", stripetest.SubLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01"))
	inv.StartingBalance = 300
	inv.AmountDue, inv.AmountPaid = inv.Total+300, inv.Total+300
	p := *inv.Payments.Data[0]
	p.AmountPaid, p.Invoice = inv.AmountDue, &stripe.Invoice{ID: inv.ID}
	p.Payment = &stripe.InvoicePaymentPayment{Type: "payment_intent", PaymentIntent: &stripe.PaymentIntent{ID: "pi_in_1"}}
	inv.Payments = nil
	open := *inv
	open.Status, open.AmountPaid, open.AmountRemaining = stripe.InvoiceStatusOpen, 0, inv.AmountDue
	h.add(stripe.EventTypeInvoiceFinalized, "2026-04-01", &open, nil)
	h.add(stripe.EventTypeInvoicePaymentPaid, "2026-04-01", &p, nil)
	h.add(stripe.EventTypeInvoicePaid, "2026-04-01", inv, nil)
	n := len(h.events)
	return h, h.events[n-3], h.events[n-2], h.events[n-1]
}

// TestPaymentOfAnEarlierBalance: an invoice paid together with what the customer owed
// from before is stored with its lines and a payment of its own amount, so it counts as
// paid (a subscriber under ChartMogul's default invoice handling), whatever the order of
// its events; delivered again, or as new events of the same snapshots, they change
// nothing.
func TestPaymentOfAnEarlierBalance(t *testing.T) {
	tests := []struct {
		name  string
		order func(finalized, payment, paid stripe.Event) []stripe.Event
	}{
		{name: "payment before invoice.paid", order: func(f, p, d stripe.Event) []stripe.Event { return []stripe.Event{f, p, d} }},
		{name: "invoice.paid before the payment", order: func(f, p, d stripe.Event) []stripe.Event { return []stripe.Event{f, d, p} }},
		{name: "reversed", order: func(f, p, d stripe.Event) []stripe.Event { return []stripe.Event{d, p, f} }},
	}
	env := newEnv(t)
	s := newSync(env.Deps)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn := connect(t, env, tc.name)
			h, f, p, d := owingCustomer()
			events := append(slices.Clone(h.events[:len(h.events)-3]), tc.order(f, p, d)...)
			if err := deliver(s, conn, events); err != nil {
				t.Fatal(err)
			}
			drain(t, env)
			stored := invoice(t, env, conn, "in_1")
			var lines, txs []string
			for _, li := range stored.LineItems {
				lines = append(lines, fmt.Sprintf("%s %d", li.ExternalID, li.AmountInCents))
			}
			for _, tr := range stored.Transactions {
				txs = append(txs, fmt.Sprintf("%s %s %s %d", tr.ExternalID, tr.Type, tr.Result, *tr.AmountInCents))
			}
			if want := []string{"il_1 5000"}; !slices.Equal(lines, want) {
				t.Errorf("lines %q, want %q", lines, want)
			}
			if want := []string{"inpay_in_1 payment successful 5000"}; !slices.Equal(txs, want) {
				t.Errorf("transactions %q, want %q", txs, want)
			}
			if got := mrrOn(t, env, conn.AccountID, "2026-04-15"); got != 5000 {
				t.Errorf("MRR on 2026-04-15 = %d, want 5000", got)
			}
			if got, want := movesOf(t, env, conn, "cus_1"), []move{{"new_biz", "2026-04-01", 5000}}; !slices.Equal(got, want) {
				t.Errorf("movements %v, want %v", got, want)
			}

			before := projection(t, env, conn, events)
			// The same events again, and as new events of the same snapshots (the
			// payment's cap leaves out its own earlier record).
			again := slices.Clone(events)
			for _, ev := range events {
				ev.ID += "_again"
				again = append(again, ev)
			}
			if err := deliver(s, conn, again); err != nil {
				t.Fatal(err)
			}
			drain(t, env)
			if after := projection(t, env, conn, events); after != before {
				t.Errorf("delivered again, the records changed:\n%s\nwant\n%s", after, before)
			}
			if got := mrrOn(t, env, conn.AccountID, "2026-04-15"); got != 5000 {
				t.Errorf("MRR on 2026-04-15 after redelivery = %d, want 5000", got)
			}
		})
	}
}
