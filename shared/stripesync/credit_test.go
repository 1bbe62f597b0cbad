package stripesync_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/stripesource/stripetest"
)

// creditedAddOn: $150 a month from April 1st, downgraded to $50 on April 16th with
// proration_behavior always_invoice (the proration's net credit of $50 goes to the
// customer's balance), then a second subscription, sub_2 (item si_9), bought on April
// 20th for addOn a month: its first invoice is settled first from that balance, the rest
// (if any) paid by card.
func creditedAddOn(h *history, addOn int64) {
	s := h.subscribe("2026-04-01", []*stripe.Price{priceM2})
	h.pay(stripetest.PaidInvoice("in_1", "2026-04-01", stripetest.SubLine("il_1", "sub_1", "si_1", "price_m2", 15000, 1, "2026-04-01", "2026-05-01")))
	down := *s
	down.Items = &stripe.SubscriptionItemList{Data: []*stripe.SubscriptionItem{{ID: "si_1", Subscription: "sub_1", Price: priceM, Quantity: 1}}}
	h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-04-16", &down, map[string]any{
		"items": map[string]any{"data": []any{map[string]any{"id": "si_1", "price": map[string]any{"id": "price_m2"}}}}})
	proration := stripetest.PaidInvoice("in_2", "2026-04-16",
		stripetest.ProrationLine(stripetest.SubLine("il_2a", "sub_1", "si_1", "price_m2", -7500, 1, "2026-04-16", "2026-05-01")),
		stripetest.ProrationLine(stripetest.SubLine("il_2b", "sub_1", "si_1", "price_m", 2500, 1, "2026-04-16", "2026-05-01")))
	h.settleFromBalance(proration)

	addOnPrice := stripetest.Monthly("price_addon")
	s2 := stripetest.Subscription("sub_2", "si_9")
	s2.Created, s2.StartDate = day("2026-04-20"), day("2026-04-20")
	s2.Items.Data[0].Price, s2.Items.Data[0].Quantity = addOnPrice, 1
	h.add(stripe.EventTypeCustomerSubscriptionCreated, "2026-04-20", s2, nil)
	first := stripetest.PaidInvoice("in_3", "2026-04-20", stripetest.SubLine("il_3", "sub_2", "si_9", "price_addon", addOn, 1, "2026-04-20", "2026-05-20"))
	balance := proration.Total
	first.StartingBalance = balance
	first.AmountDue = max(first.Total+balance, 0)
	first.AmountPaid, first.EndingBalance = first.AmountDue, min(first.Total+balance, 0)
	if first.AmountDue > 0 {
		first.Payments.Data[0].AmountPaid = first.AmountDue
		h.pay(first)
		return
	}
	// Nothing due: Stripe marks it paid at finalization, with no payment.
	first.Payments = nil
	open := *first
	open.Status = stripe.InvoiceStatusOpen
	h.add(stripe.EventTypeInvoiceFinalized, "2026-04-20", &open, nil)
	h.add(stripe.EventTypeInvoicePaid, "2026-04-20", first, nil)
}

// TestInvoicesPaidByCredit: an invoice Stripe shows paid, settled partly or wholly
// from the customer's credit balance, makes a subscriber under ChartMogul's default
// invoice handling (a subscription is created by a fully paid invoice). Delivered
// again, and as a later snapshot of the paid invoice, it writes nothing new.
func TestInvoicesPaidByCredit(t *testing.T) {
	tests := []struct {
		name   string
		addOn  int64
		credit int64
		moves  []move
	}{
		{name: "paid partly from the balance", addOn: 10000, credit: 5000,
			moves: []move{{"new_biz", "2026-04-01", 15000}, {"contraction", "2026-04-16", -10000}, {"expansion", "2026-04-20", 10000}}},
		{name: "covered by the balance, nothing due", addOn: 4000, credit: 4000,
			moves: []move{{"new_biz", "2026-04-01", 15000}, {"contraction", "2026-04-16", -10000}, {"expansion", "2026-04-20", 4000}}},
	}
	env := newEnv(t)
	s := newSync(env.Deps)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn := connect(t, env, tc.name)
			var h history
			creditedAddOn(&h, tc.addOn)
			if err := deliver(s, conn, h.events); err != nil {
				t.Fatal(err)
			}
			drain(t, env)
			for _, c := range []mrrCheck{{"2026-04-19", 5000}, {"2026-04-25", 5000 + tc.addOn}} {
				if got := mrrOn(t, env, conn.AccountID, c.on); got != c.mrr {
					t.Errorf("MRR on %s = %d, want %d", c.on, got, c.mrr)
				}
			}
			if got := movesOf(t, env, conn, "cus_1"); !slices.Equal(got, tc.moves) {
				t.Errorf("movements %v, want %v", got, tc.moves)
			}
			stored := invoice(t, env, conn, "in_3")
			var credits []string
			for _, tr := range stored.Transactions {
				if strings.HasSuffix(tr.ExternalID, ":credit") {
					credits = append(credits, fmt.Sprintf("%s %s %s %d %s", tr.ExternalID, tr.Type, tr.Result, *tr.AmountInCents, tr.Date.UTC().Format(time.DateOnly)))
				}
			}
			if want := []string{fmt.Sprintf("in_3:credit payment successful %d 2026-04-20", tc.credit)}; !slices.Equal(credits, want) {
				t.Errorf("credit payments %q, want %q", credits, want)
			}

			before := projection(t, env, conn, h.events)
			// The same events again, then a later snapshot of the paid invoice.
			again := slices.Clone(h.events)
			for _, ev := range h.events {
				if ev.Type == stripe.EventTypeInvoicePaid {
					later := ev
					later.ID, later.Type, later.Created = ev.ID+"_later", stripe.EventTypeInvoiceUpdated, ev.Created+3600
					again = append(again, later)
				}
			}
			if err := deliver(s, conn, again); err != nil {
				t.Fatal(err)
			}
			drain(t, env)
			if after := projection(t, env, conn, h.events); after != before {
				t.Errorf("delivered again, the records changed:\n%s\nwant\n%s", after, before)
			}
			if got := mrrOn(t, env, conn.AccountID, "2026-04-25"); got != 5000+tc.addOn {
				t.Errorf("MRR on 2026-04-25 after redelivery = %d, want %d", got, 5000+tc.addOn)
			}
		})
	}
}
