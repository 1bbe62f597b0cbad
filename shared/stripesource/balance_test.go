package stripesource

import (
	"testing"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/metrics/engine"
)

// TestPaymentOfAnEarlierBalance: an invoice whose customer owed an amount from before
// (a positive starting_balance) is paid for more than its lines: the payments recorded
// on it stop at its import total, so a json_import accepts it and it reads as paid.
func TestPaymentOfAnEarlierBalance(t *testing.T) {
	cat := catalog(monthly("price_m"))
	owing := func(payments ...int64) *stripe.Invoice {
		inv := paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-01-01", "2026-02-01"))
		inv.StartingBalance = 300
		inv.AmountDue, inv.AmountPaid = inv.Total+300, inv.Total+300
		first := inv.Payments.Data[0]
		inv.Payments.Data = nil
		for i, amount := range payments {
			p := *first
			p.ID, p.AmountPaid = first.ID+string(rune('a'+i)), amount
			inv.Payments.Data = append(inv.Payments.Data, &p)
		}
		return inv
	}
	unlisted := owing()
	unlisted.Payments = nil
	tests := []struct {
		name     string
		inv      *stripe.Invoice
		payments []int64 // the amounts recorded, in the list's order
		state    string
	}{
		{name: "one payment of the invoice and the balance", inv: owing(5300), payments: []int64{5000}, state: engine.PaymentPaid},
		{name: "two payments, the second capped", inv: owing(3000, 2300), payments: []int64{3000, 2000}, state: engine.PaymentPaid},
		{name: "a payment beyond what is left", inv: owing(5000, 300), payments: []int64{5000}, state: engine.PaymentPaid},
		{name: "payments not listed: no credit payment", inv: unlisted, state: engine.PaymentOpen},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := mapAll(t, cat, []*stripe.Invoice{tc.inv}, Records{})
			var got []int64
			for _, tr := range recs.Transactions {
				got = append(got, *tr.AmountInCents)
			}
			if len(got) != len(tc.payments) {
				t.Fatalf("payments %v, want %v", got, tc.payments)
			}
			for i := range got {
				if got[i] != tc.payments[i] || recs.Transactions[i].ExternalID != tc.inv.Payments.Data[i].ID {
					t.Errorf("payment %d: %+v, want %s for %d", i, recs.Transactions[i], tc.inv.Payments.Data[i].ID, tc.payments[i])
				}
			}
			if state := paymentState(t, recs); state != tc.state {
				t.Errorf("payment state %s, want %s", state, tc.state)
			}
		})
	}
}
