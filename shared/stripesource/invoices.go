package stripesource

import (
	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

// Invoice maps a finalized Stripe invoice: the invoice, its lines, the plans of their
// recurring prices, its paid invoice payments, and its status when voided or
// uncollectible. lines are the invoice's lines when inv.Lines holds only the first page;
// nil takes inv.Lines. A draft maps to no records: it is not issued yet.
func Invoice(inv *stripe.Invoice, lines []*stripe.InvoiceLineItem, cat Catalog) (Records, error) {
	var recs Records
	if inv.Status == stripe.InvoiceStatusDraft || inv.Status == "" {
		return recs, nil
	}
	if lines == nil && inv.Lines != nil {
		lines = inv.Lines.Data
	}
	currency := currencyCode(string(inv.Currency))
	out := model.ImportInvoice{ExternalID: inv.ID, CustomerExternalID: customerID(inv.Customer),
		Currency: currency, DueDate: unix(inv.DueDate), CollectionMethod: collectionMethod(inv.CollectionMethod)}
	if st := inv.StatusTransitions; st != nil {
		out.Date = *firstSet(st.FinalizedAt, inv.EffectiveAt, inv.Created)
	} else {
		out.Date = *firstSet(inv.EffectiveAt, inv.Created)
	}
	recs.Invoices = append(recs.Invoices, out)
	plans := map[string]bool{}
	for i, l := range lines {
		li, price, err := lineItem(l, currency, cat)
		if err != nil {
			return Records{}, err
		}
		li.InvoiceExternalID, li.Position = inv.ID, i
		recs.LineItems = append(recs.LineItems, li)
		if price != nil && !plans[price.ID] {
			plans[price.ID] = true
			if p, ok, err := Plan(price); err != nil {
				return Records{}, err
			} else if ok {
				recs.Plans = append(recs.Plans, p)
			}
		}
	}
	var paid, total int64
	for _, li := range recs.LineItems {
		total += li.AmountInCents
	}
	if inv.Payments != nil {
		for _, p := range inv.Payments.Data {
			t, ok := payment(p, inv.ID, currency)
			if t, ok = CapPayment(t, ok, total-paid); ok {
				recs.Transactions = append(recs.Transactions, t)
				paid += *t.AmountInCents
			}
		}
	}
	// What was paid for this invoice: a positive starting balance was paid for earlier.
	forInvoice := cents(inv.AmountPaid-max(inv.StartingBalance, 0), currency)
	if t, ok := creditPayment(inv, lines, out.Date, total, max(paid, forInvoice)); ok {
		recs.Transactions = append(recs.Transactions, t)
	}
	if s := invoiceStatus(inv.Status); s != "" {
		recs.InvoiceStatuses = append(recs.InvoiceStatuses, InvoiceStatus{InvoiceExternalID: inv.ID, Status: s})
	} else if inv.Status == stripe.InvoiceStatusPaid && inv.StatusTransitions != nil && inv.StatusTransitions.MarkedUncollectibleAt != 0 {
		// Paid after it was marked uncollectible: counted again.
		recs.InvoiceStatuses = append(recs.InvoiceStatuses, InvoiceStatus{InvoiceExternalID: inv.ID, Status: InvoiceIssued})
	}
	return recs, nil
}

func customerID(c *stripe.Customer) string {
	if c == nil {
		return ""
	}
	return c.ID
}

func collectionMethod(m stripe.InvoiceCollectionMethod) string {
	switch m {
	case stripe.InvoiceCollectionMethodChargeAutomatically:
		return "automatic"
	case stripe.InvoiceCollectionMethodSendInvoice:
		return "manual"
	}
	return ""
}

func invoiceStatus(s stripe.InvoiceStatus) string {
	switch s {
	case stripe.InvoiceStatusVoid:
		return model.InvoiceVoided
	case stripe.InvoiceStatusUncollectible:
		return model.InvoiceWrittenOff
	}
	return ""
}

// lineItem maps one invoice line; price is the line's recurring price when the line is a
// subscription line (its plan), else nil.
func lineItem(l *stripe.InvoiceLineItem, currency string, cat Catalog) (model.ImportLineItem, *stripe.Price, error) {
	var discount, taxInclusive, taxExclusive int64
	for _, d := range l.DiscountAmounts {
		discount += d.Amount
	}
	for _, t := range l.Taxes {
		if t.TaxBehavior == stripe.InvoiceLineItemTaxTaxBehaviorExclusive {
			taxExclusive += t.Amount
		} else {
			taxInclusive += t.Amount
		}
	}
	li := model.ImportLineItem{LineItemFields: model.LineItemFields{
		ExternalID:            l.ID,
		Type:                  "one_time",
		AmountInCents:         cents(l.Amount-discount+taxExclusive, currency),
		Quantity:              max(l.Quantity, 1),
		DiscountAmountInCents: cents(discount, currency),
		DiscountCode:          discountCode(l),
		TaxAmountInCents:      cents(taxInclusive+taxExclusive, currency),
		Description:           l.Description,
	}}
	// An invoice item's period is often one instant, which an import refuses: then the
	// line has none.
	if l.Period != nil && l.Period.End > l.Period.Start {
		li.ServicePeriodStart, li.ServicePeriodEnd = unix(l.Period.Start), unix(l.Period.End)
	}
	sub, item, proration := subscriptionOf(l, cat)
	if sub == "" || item == "" {
		return li, nil, nil
	}
	priceID := ""
	if l.Pricing != nil && l.Pricing.PriceDetails != nil {
		priceID = l.Pricing.PriceDetails.Price
	}
	price, err := cat.price(priceID)
	if err != nil && cat.UnknownPricesOneTime {
		return li, nil, nil
	}
	if err != nil {
		return li, nil, err
	}
	if price.Recurring == nil || metered(price) {
		return li, nil, nil
	}
	li.Type = "subscription"
	li.SubscriptionSetExternalID, li.SubscriptionExternalID = sub, item
	li.PlanExternalID = price.ID
	if proration {
		li.Prorated, li.ProrationType = true, "differential"
	}
	return li, price, nil
}

// subscriptionOf: the subscription and subscription item a line bills, and whether it is
// a proration. A line of a subscription item names both; a proration billed as an
// invoice item names only the subscription, and its item is the one with the line's
// price in the catalog's copy of that subscription.
func subscriptionOf(l *stripe.InvoiceLineItem, cat Catalog) (sub, item string, proration bool) {
	if l.Parent == nil {
		return "", "", false
	}
	if d := l.Parent.SubscriptionItemDetails; d != nil {
		return d.Subscription, d.SubscriptionItem, d.Proration
	}
	d := l.Parent.InvoiceItemDetails
	if d == nil || !d.Proration || d.Subscription == "" || l.Pricing == nil || l.Pricing.PriceDetails == nil {
		return "", "", false
	}
	if s := cat.Subscriptions[d.Subscription]; s != nil && s.Items != nil {
		for _, it := range s.Items.Data {
			if it.Price != nil && it.Price.ID == l.Pricing.PriceDetails.Price {
				return d.Subscription, it.ID, true
			}
		}
	}
	return "", "", false
}

// discountCode: the promotion code a customer typed, else the coupon's id, of the line's
// first discount (when Stripe sent those objects expanded).
func discountCode(l *stripe.InvoiceLineItem) string {
	for _, d := range l.DiscountAmounts {
		if d.Amount == 0 || d.Discount == nil {
			continue
		}
		if pc := d.Discount.PromotionCode; pc != nil && pc.Code != "" {
			return pc.Code
		}
		if src := d.Discount.Source; src != nil && src.Coupon != nil {
			return src.Coupon.ID
		}
	}
	return ""
}
