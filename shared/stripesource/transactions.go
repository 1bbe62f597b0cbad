package stripesource

import (
	"strconv"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

// Payment is the successful payment transaction of a paid invoice payment (its invoice
// named by id or expanded); ok is false until it is paid.
func Payment(p *stripe.InvoicePayment) (model.ImportTransaction, bool) {
	if p.Invoice == nil {
		return model.ImportTransaction{}, false
	}
	return payment(p, p.Invoice.ID, currencyCode(string(p.Currency)))
}

func payment(p *stripe.InvoicePayment, invoiceID, currency string) (model.ImportTransaction, bool) {
	if p.Status != "paid" {
		return model.ImportTransaction{}, false
	}
	if p.Currency != "" {
		currency = currencyCode(string(p.Currency))
	}
	at := firstSet(p.Created)
	if p.StatusTransitions != nil {
		at = firstSet(p.StatusTransitions.PaidAt, p.Created)
	}
	if at == nil {
		return model.ImportTransaction{}, false
	}
	amount := cents(p.AmountPaid, currency)
	return model.ImportTransaction{InvoiceExternalID: invoiceID, TransactionFields: model.TransactionFields{
		ExternalID: p.ID, Type: "payment", Result: "successful", Date: *at, AmountInCents: &amount}}, true
}

// CapPayment caps a successful payment (ok false: none) at left, what is left of its
// invoice's import total after the invoice's other successful payments. A payment above
// it also settled what the customer owed from before (Stripe's positive
// starting_balance), which is not this invoice's: the import would refuse the payment
// whole. ok is false when nothing is left. The external id stays the payment's, so
// every delivery writes the same transaction.
func CapPayment(t model.ImportTransaction, ok bool, left int64) (model.ImportTransaction, bool) {
	if !ok || t.Result != "successful" || t.AmountInCents == nil {
		return t, ok
	}
	if left <= 0 {
		return model.ImportTransaction{}, false
	}
	if *t.AmountInCents > left {
		t.AmountInCents = &left
	}
	return t, true
}

// creditPayment is the successful payment of the part of a paid invoice that the
// customer's Stripe credit balance or billing credits settled: what its paid invoice
// payments (paid, in hundredths) leave uncovered of its import total (total), at most what
// Stripe reports as applied. The balance applied is total − amount_due, less what
// pre-payment credit notes took off (credit notes are not read); billing credits are
// the invoice's pretax credits of type credit_balance_transaction (else its lines'), which
// Stripe's total has already taken off while the import's line amounts have not. It is dated when the
// invoice was paid (else issued) and its external id derives from the invoice's, so every
// snapshot of the paid invoice writes the same transaction. ok is false for any other
// invoice, or when nothing was settled by credit.
func creditPayment(inv *stripe.Invoice, lines []*stripe.InvoiceLineItem, issued time.Time, total, paid int64) (model.ImportTransaction, bool) {
	if inv.Status != stripe.InvoiceStatusPaid {
		return model.ImportTransaction{}, false
	}
	currency := currencyCode(string(inv.Currency))
	applied := max(inv.Total-inv.AmountDue-inv.PrePaymentCreditNotesAmount, 0)
	for _, c := range inv.TotalPretaxCreditAmounts {
		if c.Type == stripe.InvoiceTotalPretaxCreditAmountTypeCreditBalanceTransaction {
			applied += c.Amount
		}
	}
	if len(inv.TotalPretaxCreditAmounts) == 0 {
		for _, l := range lines {
			for _, c := range l.PretaxCreditAmounts {
				if c.Type == stripe.InvoiceLineItemPretaxCreditAmountTypeCreditBalanceTransaction {
					applied += c.Amount
				}
			}
		}
	}
	amount := min(total-paid, cents(applied, currency))
	if amount <= 0 {
		return model.ImportTransaction{}, false
	}
	at := issued
	if inv.StatusTransitions != nil && inv.StatusTransitions.PaidAt != 0 {
		at = *unix(inv.StatusTransitions.PaidAt)
	}
	return model.ImportTransaction{InvoiceExternalID: inv.ID, TransactionFields: model.TransactionFields{
		ExternalID: inv.ID + ":credit", Type: "payment", Result: "successful", Date: at, AmountInCents: &amount}}, true
}

// FailedPayment is the failed payment transaction of an invoice.payment_failed event
// created at at: one per attempt (Stripe counts them in attempt_count), for the amount
// still due.
func FailedPayment(inv *stripe.Invoice, at time.Time) model.ImportTransaction {
	currency := currencyCode(string(inv.Currency))
	amount := cents(inv.AmountRemaining, currency)
	return model.ImportTransaction{InvoiceExternalID: inv.ID, TransactionFields: model.TransactionFields{
		ExternalID: inv.ID + ":failed:" + strconv.FormatInt(inv.AttemptCount, 10),
		Type:       "payment", Result: "failed", Date: at.UTC(), AmountInCents: &amount}}
}

// Refund is the refund transaction of a Stripe refund of a payment of the invoice
// invoiceID (a refund names a charge or payment intent, not an invoice: the caller finds
// the invoice through its invoice payment). ok is false while the refund is pending.
func Refund(r *stripe.Refund, invoiceID string) (model.ImportTransaction, bool) {
	var result string
	switch r.Status {
	case stripe.RefundStatusSucceeded:
		result = "successful"
	case stripe.RefundStatusFailed:
		result = "failed"
	default:
		return model.ImportTransaction{}, false
	}
	if r.Created == 0 {
		return model.ImportTransaction{}, false
	}
	amount := cents(r.Amount, currencyCode(string(r.Currency)))
	return model.ImportTransaction{InvoiceExternalID: invoiceID, TransactionFields: model.TransactionFields{
		ExternalID: r.ID, Type: "refund", Result: result, Date: *unix(r.Created), AmountInCents: &amount}}, true
}
