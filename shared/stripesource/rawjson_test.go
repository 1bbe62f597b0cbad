package stripesource

import (
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"
)

// rawInvoicePaid is an invoice.paid event as Stripe renders it in 2026-02-25.clover:
// expandable fields as ids, the subscription in parent, the price in pricing, tax in taxes.
const rawInvoicePaid = `{
  "id": "evt_raw", "object": "event", "api_version": "2026-02-25.clover", "created": 1767225600,
  "livemode": false, "pending_webhooks": 1, "type": "invoice.paid",
  "request": {"id": null, "idempotency_key": null},
  "data": {"object": {
    "id": "in_raw", "object": "invoice", "customer": "cus_raw", "currency": "eur", "status": "paid",
    "collection_method": "charge_automatically", "created": 1767225000, "due_date": null,
    "effective_at": 1767225600, "amount_due": 9600, "amount_paid": 9600, "amount_remaining": 0,
    "status_transitions": {"finalized_at": 1767225600, "paid_at": 1767225660, "voided_at": null, "marked_uncollectible_at": null},
    "parent": {"type": "subscription_details", "quote_details": null,
      "subscription_details": {"subscription": "sub_raw", "metadata": {}}},
    "lines": {"object": "list", "has_more": false, "url": "/v1/invoices/in_raw/lines", "data": [{
      "id": "il_raw", "object": "line_item", "invoice": "in_raw", "amount": 10000, "subtotal": 10000,
      "currency": "eur", "description": "1 × Pro (at €100.00 / month)", "quantity": 1, "discountable": true,
      "discounts": ["di_raw"], "discount_amounts": [{"amount": 2000, "discount": "di_raw"}],
      "pretax_credit_amounts": [{"amount": 2000, "type": "discount", "discount": "di_raw"}],
      "taxes": [{"amount": 1600, "taxable_amount": 8000, "tax_behavior": "exclusive",
        "taxability_reason": "standard_rated", "type": "tax_rate_details",
        "tax_rate_details": {"tax_rate": "txr_raw"}}],
      "period": {"start": 1767225600, "end": 1769904000},
      "pricing": {"type": "price_details", "unit_amount_decimal": "10000",
        "price_details": {"price": "price_raw", "product": "prod_raw"}},
      "parent": {"type": "subscription_item_details", "invoice_item_details": null,
        "subscription_item_details": {"subscription": "sub_raw", "subscription_item": "si_raw",
          "invoice_item": null, "proration": false, "proration_details": {"credited_items": null}}},
      "metadata": {}}]},
    "payments": {"object": "list", "has_more": false, "data": [{
      "id": "inpay_raw", "object": "invoice_payment", "invoice": "in_raw", "amount_paid": 9600,
      "amount_requested": 9600, "currency": "eur", "status": "paid", "is_default": true, "created": 1767225600,
      "payment": {"type": "payment_intent", "payment_intent": "pi_raw"},
      "status_transitions": {"paid_at": 1767225660, "canceled_at": null}}]}
  }}
}`

// TestRawEvent decodes an event in Stripe's own rendering, not stripe-go's encoding.
func TestRawEvent(t *testing.T) {
	signed := time.Unix(1767225600, 0)
	header := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: []byte(rawInvoicePaid),
		Secret: testSecret, Timestamp: signed}).Header
	ev, err := Verifier{Now: func() time.Time { return signed }}.Verify([]byte(rawInvoicePaid), header, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	var inv stripe.Invoice
	if err := Object(ev, &inv); err != nil {
		t.Fatal(err)
	}
	recs, err := Invoice(&inv, nil, catalog(monthly("price_raw")))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs.Invoices) != 1 || len(recs.LineItems) != 1 || len(recs.Transactions) != 1 || len(recs.Plans) != 1 {
		t.Fatalf("records %+v", recs)
	}
	in, li, tr := recs.Invoices[0], recs.LineItems[0], recs.Transactions[0]
	if in.CustomerExternalID != "cus_raw" || in.Currency != "EUR" || !in.Date.Equal(signed) || in.DueDate != nil {
		t.Errorf("invoice %+v", in)
	}
	if li.Type != "subscription" || li.SubscriptionExternalID != "si_raw" || li.SubscriptionSetExternalID != "sub_raw" ||
		li.PlanExternalID != "price_raw" || li.AmountInCents != 9600 || li.TaxAmountInCents != 1600 ||
		li.DiscountAmountInCents != 2000 || !li.ServicePeriodEnd.Equal(time.Unix(1769904000, 0)) {
		t.Errorf("line item %+v", li)
	}
	if tr.ExternalID != "inpay_raw" || *tr.AmountInCents != 9600 || !tr.Date.Equal(time.Unix(1767225660, 0)) {
		t.Errorf("transaction %+v", tr)
	}
}
