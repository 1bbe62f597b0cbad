// Package stripetest builds Stripe objects with stripe-go's types for tests: prices,
// invoice lines, invoices and subscriptions of customer cus_1, dated by UTC days.
package stripetest

import (
	"encoding/json"
	"time"

	"github.com/stripe/stripe-go/v84"
)

// Day is a UTC date ("2006-01-02") as a Stripe timestamp.
func Day(d string) int64 {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		panic(err)
	}
	return t.Unix()
}

// At is a UTC date ("2006-01-02") as a time.
func At(d string) time.Time { return time.Unix(Day(d), 0).UTC() }

// Recurring is a licensed recurring USD price billed every count intervals.
func Recurring(id string, interval stripe.PriceRecurringInterval, count int64) *stripe.Price {
	return &stripe.Price{ID: id, Currency: "usd", Recurring: &stripe.PriceRecurring{Interval: interval,
		IntervalCount: count, UsageType: stripe.PriceRecurringUsageTypeLicensed}}
}

// Monthly is a licensed monthly USD price.
func Monthly(id string) *stripe.Price { return Recurring(id, stripe.PriceRecurringIntervalMonth, 1) }

// MeteredPrice is a monthly price billed by usage.
func MeteredPrice(id string) *stripe.Price {
	p := Monthly(id)
	p.Recurring.UsageType = stripe.PriceRecurringUsageTypeMetered
	return p
}

// OneOffPrice is a price without recurrence (one-off invoice items).
func OneOffPrice(id string) *stripe.Price { return &stripe.Price{ID: id, Currency: "usd"} }

// SubLine is a line billing subscription item si of subscription sub at price for the
// period [from, to).
func SubLine(id, sub, si, price string, amount, qty int64, from, to string) *stripe.InvoiceLineItem {
	return &stripe.InvoiceLineItem{ID: id, Object: "line_item", Amount: amount, Subtotal: amount, Currency: "usd",
		Quantity: qty, Period: &stripe.Period{Start: Day(from), End: Day(to)},
		Pricing: &stripe.InvoiceLineItemPricing{Type: "price_details",
			PriceDetails: &stripe.InvoiceLineItemPricingPriceDetails{Price: price}},
		Parent: &stripe.InvoiceLineItemParent{Type: stripe.InvoiceLineItemParentTypeSubscriptionItemDetails,
			SubscriptionItemDetails: &stripe.InvoiceLineItemParentSubscriptionItemDetails{
				Subscription: sub, SubscriptionItem: si}}}
}

// ItemLine is a one-off invoice item's line.
func ItemLine(id, price string, amount int64, on string) *stripe.InvoiceLineItem {
	return &stripe.InvoiceLineItem{ID: id, Object: "line_item", Amount: amount, Currency: "usd", Quantity: 1,
		Period: &stripe.Period{Start: Day(on), End: Day(on)},
		Pricing: &stripe.InvoiceLineItemPricing{Type: "price_details",
			PriceDetails: &stripe.InvoiceLineItemPricingPriceDetails{Price: price}},
		Parent: &stripe.InvoiceLineItemParent{Type: stripe.InvoiceLineItemParentTypeInvoiceItemDetails,
			InvoiceItemDetails: &stripe.InvoiceLineItemParentInvoiceItemDetails{InvoiceItem: "ii_" + id}}}
}

// ProrationLine marks a subscription item's line as a proration.
func ProrationLine(l *stripe.InvoiceLineItem) *stripe.InvoiceLineItem {
	l.Parent.SubscriptionItemDetails.Proration = true
	return l
}

// Discounted adds a discount of amount from coupon to l.
func Discounted(l *stripe.InvoiceLineItem, amount int64, coupon string) *stripe.InvoiceLineItem {
	l.Discountable = true
	l.DiscountAmounts = append(l.DiscountAmounts, &stripe.InvoiceLineItemDiscountAmount{Amount: amount,
		Discount: &stripe.Discount{ID: "di_" + coupon, Source: &stripe.DiscountSource{Type: "coupon",
			Coupon: &stripe.Coupon{ID: coupon}}}})
	return l
}

// Taxed adds a tax of amount on taxable, inclusive or exclusive, to l.
func Taxed(l *stripe.InvoiceLineItem, amount, taxable int64, behavior stripe.InvoiceLineItemTaxTaxBehavior) *stripe.InvoiceLineItem {
	l.Taxes = append(l.Taxes, &stripe.InvoiceLineItemTax{Amount: amount, TaxableAmount: taxable,
		TaxBehavior: behavior, Type: "tax_rate_details"})
	return l
}

// InCurrency sets l's currency.
func InCurrency(l *stripe.InvoiceLineItem, c stripe.Currency) *stripe.InvoiceLineItem {
	l.Currency = c
	return l
}

// PaidInvoice is an invoice of cus finalized and paid on finalized, for the sum of its lines.
func PaidInvoice(id, finalized string, lines ...*stripe.InvoiceLineItem) *stripe.Invoice {
	inv := OpenInvoice(id, finalized, lines...)
	inv.Status = stripe.InvoiceStatusPaid
	inv.AmountPaid, inv.AmountRemaining = inv.AmountDue, 0
	inv.StatusTransitions.PaidAt = inv.StatusTransitions.FinalizedAt
	inv.Payments = &stripe.InvoicePaymentList{Data: []*stripe.InvoicePayment{{ID: "inpay_" + id, AmountPaid: inv.AmountDue,
		Currency: inv.Currency, Status: "paid", StatusTransitions: &stripe.InvoicePaymentStatusTransitions{PaidAt: Day(finalized)}}}}
	return inv
}

// OpenInvoice is an invoice of cus_1 finalized on finalized and not paid yet.
func OpenInvoice(id, finalized string, lines ...*stripe.InvoiceLineItem) *stripe.Invoice {
	var total int64
	currency := stripe.Currency("usd")
	for _, l := range lines {
		total += l.Amount
		for _, d := range l.DiscountAmounts {
			total -= d.Amount
		}
		for _, t := range l.Taxes {
			if t.TaxBehavior == stripe.InvoiceLineItemTaxTaxBehaviorExclusive {
				total += t.Amount
			}
		}
		l.Invoice, currency = id, l.Currency
	}
	return &stripe.Invoice{ID: id, Object: "invoice", Customer: &stripe.Customer{ID: "cus_1"}, Currency: currency,
		Status: stripe.InvoiceStatusOpen, CollectionMethod: stripe.InvoiceCollectionMethodChargeAutomatically,
		Created: Day(finalized), Total: total, AmountDue: total, AmountRemaining: total,
		StatusTransitions: &stripe.InvoiceStatusTransitions{FinalizedAt: Day(finalized)},
		Lines:             &stripe.InvoiceLineItemList{Data: lines}}
}

// WithStatus sets inv's status.
func WithStatus(inv *stripe.Invoice, s stripe.InvoiceStatus) *stripe.Invoice {
	inv.Status = s
	return inv
}

// Subscription is a Stripe subscription of cus_1 with one item per id.
func Subscription(id string, items ...string) *stripe.Subscription {
	s := &stripe.Subscription{ID: id, Object: "subscription", Customer: &stripe.Customer{ID: "cus_1"},
		Status: stripe.SubscriptionStatusActive, Items: &stripe.SubscriptionItemList{}}
	for _, it := range items {
		s.Items.Data = append(s.Items.Data, &stripe.SubscriptionItem{ID: it, Subscription: id})
	}
	return s
}

// EventPayload is the JSON body Stripe delivers for an event of kind wrapping object
// (as it was when the event was created), with previous attributes for an update.
func EventPayload(id string, kind stripe.EventType, created int64, object any, previous map[string]any) []byte {
	obj, err := json.Marshal(object)
	if err != nil {
		panic(err)
	}
	data := map[string]any{"object": json.RawMessage(obj)}
	if previous != nil {
		data["previous_attributes"] = previous
	}
	payload, err := json.Marshal(map[string]any{"id": id, "object": "event", "api_version": stripe.APIVersion,
		"type": kind, "created": created, "livemode": false, "data": data})
	if err != nil {
		panic(err)
	}
	return payload
}

// Event is that event decoded as stripe-go decodes a delivery (Data.Raw holds the object).
func Event(id string, kind stripe.EventType, created int64, object any, previous map[string]any) stripe.Event {
	var ev stripe.Event
	if err := json.Unmarshal(EventPayload(id, kind, created, object, previous), &ev); err != nil {
		panic(err)
	}
	return ev
}
