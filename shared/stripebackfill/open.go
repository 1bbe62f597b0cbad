package stripebackfill

import (
	"context"
	"fmt"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/secrets"
)

// Open returns a reader of the connection's Stripe account with its API key, opened
// with the sealer; nil, nil when the connection has none.
func Open(ctx context.Context, s secrets.Sealer, conn model.StripeConnection, o Options) (*Reader, error) {
	if len(conn.SealedAPIKey) == 0 {
		return nil, nil
	}
	key, err := s.Open(ctx, conn.SealedAPIKey, secrets.Binding{AccountID: conn.AccountID, DataSourceUUID: conn.DataSourceUUID})
	if err != nil {
		return nil, fmt.Errorf("stripebackfill: open the API key: %w", err)
	}
	return NewReader(string(key), o), nil
}

// The reads of single objects below serve the live sync, which reads what an event does
// not carry (stripesync.Reader).

// Price reads one price.
func (r *Reader) Price(ctx context.Context, id string) (*stripe.Price, error) {
	return r.client.V1Prices.Retrieve(ctx, id, nil)
}

// InvoiceLines reads every line of an invoice.
func (r *Reader) InvoiceLines(ctx context.Context, invoiceID string) ([]*stripe.InvoiceLineItem, error) {
	return r.lines(ctx, &stripe.Invoice{ID: invoiceID, Lines: &stripe.InvoiceLineItemList{ListMeta: stripe.ListMeta{HasMore: true}}})
}

// InvoiceOfPayment is the id of the invoice that a payment intent (or, without one, the
// payment intent of a charge) paid, through its invoice payment; "" when none.
func (r *Reader) InvoiceOfPayment(ctx context.Context, paymentIntentID, chargeID string) (string, error) {
	if paymentIntentID == "" && chargeID != "" {
		ch, err := r.client.V1Charges.Retrieve(ctx, chargeID, nil)
		if err != nil {
			return "", fmt.Errorf("stripebackfill: charge %s: %w", chargeID, err)
		}
		if ch.PaymentIntent != nil {
			paymentIntentID = ch.PaymentIntent.ID
		}
	}
	if paymentIntentID == "" {
		return "", nil
	}
	p := &stripe.InvoicePaymentListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(1), Single: true},
		Payment: &stripe.InvoicePaymentListPaymentParams{Type: stripe.String(string(stripe.InvoicePaymentPaymentTypePaymentIntent)),
			PaymentIntent: stripe.String(paymentIntentID)}}
	for pay, err := range r.client.V1InvoicePayments.List(ctx, p) {
		if err != nil {
			return "", fmt.Errorf("stripebackfill: invoice payment of %s: %w", paymentIntentID, err)
		}
		if pay.Invoice != nil {
			return pay.Invoice.ID, nil
		}
	}
	return "", nil
}
