package stripesource

import (
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/metrics/engine"
)

// TestCreditPayment: the part of a paid invoice settled by the customer's credit balance
// or billing credits is a successful payment, so that the invoice reads as paid under
// ChartMogul's default invoice handling (a subscriber once fully paid).
func TestCreditPayment(t *testing.T) {
	cat := catalog(monthly("price_m"))
	line := func() *stripe.InvoiceLineItem {
		return subLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-01-01", "2026-02-01")
	}
	// settle pays inv through invoice payments for amountDue of its total (the rest
	// settled by credit), paid on paidAt.
	settle := func(inv *stripe.Invoice, amountDue int64, paidAt string) *stripe.Invoice {
		inv.StartingBalance, inv.AmountDue, inv.AmountPaid = amountDue-inv.Total, amountDue, amountDue
		inv.StatusTransitions.PaidAt = day(paidAt)
		inv.Payments.Data[0].AmountPaid = amountDue
		if amountDue == 0 {
			inv.Payments = nil
		}
		return inv
	}
	balance := settle(paidInvoice("in_1", "2026-01-01", line()), 3000, "2026-01-02")
	covered := settle(paidInvoice("in_1", "2026-01-01", line()), 0, "2026-01-01")
	unlisted := settle(paidInvoice("in_1", "2026-01-01", line()), 3000, "2026-01-02")
	unlisted.Payments = nil
	// Billing credits: Stripe's total is after them; the line's amount is not.
	granted := paidInvoice("in_1", "2026-01-01", line())
	granted.Total, granted.AmountDue, granted.AmountPaid = 4000, 4000, 4000
	granted.Payments.Data[0].AmountPaid = 4000
	granted.TotalPretaxCreditAmounts = []*stripe.InvoiceTotalPretaxCreditAmount{
		{Amount: 1000, Type: stripe.InvoiceTotalPretaxCreditAmountTypeCreditBalanceTransaction}}
	lineGranted := paidInvoice("in_1", "2026-01-01", line())
	lineGranted.Total, lineGranted.AmountDue, lineGranted.AmountPaid = 4000, 4000, 4000
	lineGranted.Payments.Data[0].AmountPaid = 4000
	lineGranted.Lines.Data[0].PretaxCreditAmounts = []*stripe.InvoiceLineItemPretaxCreditAmount{
		{Amount: 1000, Type: stripe.InvoiceLineItemPretaxCreditAmountTypeCreditBalanceTransaction}}
	// A discount among the pretax credits is already off the line's amount.
	discount := paidInvoice("in_1", "2026-01-01", discounted(line(), 1000, "TEN"))
	discount.TotalPretaxCreditAmounts = []*stripe.InvoiceTotalPretaxCreditAmount{
		{Amount: 1000, Type: stripe.InvoiceTotalPretaxCreditAmountTypeDiscount}}
	open := openInvoice("in_1", "2026-01-01", line())
	open.StartingBalance, open.AmountDue = -2000, 3000
	// A payment short of what the balance explains is not made up for beyond it.
	short := settle(paidInvoice("in_1", "2026-01-01", line()), 3000, "2026-01-02")
	short.AmountPaid, short.Payments.Data[0].AmountPaid = 1000, 1000
	jpy := settle(paidInvoice("in_1", "2026-01-01", inCurrency(line(), "jpy")), 3000, "2026-01-01")

	tests := []struct {
		name   string
		inv    *stripe.Invoice
		credit int64 // 0: no credit payment
		at     string
		state  string // the invoice's payment state once mapped
	}{
		{name: "paid partly from the balance", inv: balance, credit: 2000, at: "2026-01-02", state: engine.PaymentPaid},
		{name: "covered by the balance, nothing due", inv: covered, credit: 5000, at: "2026-01-01", state: engine.PaymentPaid},
		{name: "payments not listed in the snapshot", inv: unlisted, credit: 2000, at: "2026-01-02", state: engine.PaymentPartiallyPaid},
		{name: "billing credits", inv: granted, credit: 1000, at: "2026-01-01", state: engine.PaymentPaid},
		{name: "billing credits on the lines", inv: lineGranted, credit: 1000, at: "2026-01-01", state: engine.PaymentPaid},
		{name: "a discount is no credit", inv: discount, state: engine.PaymentPaid},
		{name: "paid in full by payments", inv: paidInvoice("in_1", "2026-01-01", line()), state: engine.PaymentPaid},
		{name: "open with a balance", inv: open, state: engine.PaymentOpen},
		{name: "payment short of the balance", inv: short, credit: 2000, at: "2026-01-02", state: engine.PaymentPartiallyPaid},
		{name: "zero-decimal currency", inv: jpy, credit: 200000, at: "2026-01-01", state: engine.PaymentPaid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := mapAll(t, cat, []*stripe.Invoice{tc.inv}, Records{})
			var credit int64
			for _, tr := range recs.Transactions {
				if tr.ExternalID != "in_1:credit" {
					continue
				}
				credit = *tr.AmountInCents
				if tr.Type != "payment" || tr.Result != "successful" || tr.InvoiceExternalID != "in_1" || !tr.Date.Equal(at(tc.at)) {
					t.Errorf("credit payment %+v, want a successful payment of in_1 on %s", tr, tc.at)
				}
			}
			if credit != tc.credit {
				t.Errorf("credit payment %d, want %d", credit, tc.credit)
			}
			if got := paymentState(t, recs); got != tc.state {
				t.Errorf("payment state %s, want %s", got, tc.state)
			}
			again, err := Invoice(tc.inv, nil, cat)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Transactions) != len(recs.Transactions) || (len(again.Transactions) > 0 && again.Transactions[len(again.Transactions)-1].ExternalID != recs.Transactions[len(recs.Transactions)-1].ExternalID) {
				t.Errorf("mapped again: %+v, first %+v", again.Transactions, recs.Transactions)
			}
		})
	}
}

// paymentState reads what the engine makes of the invoice under ChartMogul's default
// rules: a subscriber (MRR) only when it is paid in full; a partially paid one updates
// only a subscription that already exists.
func paymentState(t *testing.T, recs Records) string {
	t.Helper()
	currency := recs.Invoices[0].Currency
	now := time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)
	mrrUnder := func(create string) int64 {
		in := engineInput(recs, currency, now)
		in.Sources = map[string]engine.SourceRules{"ds_stripe": {Automatic: engine.InvoiceRules{CreateWhen: create,
			UpdateWhen: engine.PaymentOpen, PreventVoided: true, PreventWrittenOff: true}}}
		res := engine.Compute(in)
		if len(res.InvalidInvoices) > 0 {
			t.Fatalf("invalid invoices: %+v", res.InvalidInvoices)
		}
		return mrrAt(res, now)
	}
	switch {
	case mrrUnder(engine.PaymentPaid) > 0:
		return engine.PaymentPaid
	case mrrUnder(engine.PaymentPartiallyPaid) > 0:
		return engine.PaymentPartiallyPaid
	}
	return engine.PaymentOpen
}
