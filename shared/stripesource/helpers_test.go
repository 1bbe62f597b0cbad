package stripesource

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
)

// day is a UTC date ("2006-01-02") as a Stripe timestamp.
func day(d string) int64 {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		panic(err)
	}
	return t.Unix()
}

func at(d string) time.Time { return time.Unix(day(d), 0).UTC() }

func recurring(id string, interval stripe.PriceRecurringInterval, count int64) *stripe.Price {
	return &stripe.Price{ID: id, Currency: "usd", Recurring: &stripe.PriceRecurring{Interval: interval,
		IntervalCount: count, UsageType: stripe.PriceRecurringUsageTypeLicensed}}
}

func monthly(id string) *stripe.Price { return recurring(id, stripe.PriceRecurringIntervalMonth, 1) }

func meteredPrice(id string) *stripe.Price {
	p := monthly(id)
	p.Recurring.UsageType = stripe.PriceRecurringUsageTypeMetered
	return p
}

func oneOffPrice(id string) *stripe.Price { return &stripe.Price{ID: id, Currency: "usd"} }

func catalog(prices ...*stripe.Price) Catalog {
	c := Catalog{Prices: map[string]*stripe.Price{}}
	for _, p := range prices {
		c.Prices[p.ID] = p
	}
	return c
}

// subLine is a line billing subscription item si of subscription sub at price for the
// period [from, to).
func subLine(id, sub, si, price string, amount, qty int64, from, to string) *stripe.InvoiceLineItem {
	return &stripe.InvoiceLineItem{ID: id, Object: "line_item", Amount: amount, Subtotal: amount, Currency: "usd",
		Quantity: qty, Period: &stripe.Period{Start: day(from), End: day(to)},
		Pricing: &stripe.InvoiceLineItemPricing{Type: "price_details",
			PriceDetails: &stripe.InvoiceLineItemPricingPriceDetails{Price: price}},
		Parent: &stripe.InvoiceLineItemParent{Type: stripe.InvoiceLineItemParentTypeSubscriptionItemDetails,
			SubscriptionItemDetails: &stripe.InvoiceLineItemParentSubscriptionItemDetails{
				Subscription: sub, SubscriptionItem: si}}}
}

// itemLine is a one-off invoice item's line.
func itemLine(id, price string, amount int64, on string) *stripe.InvoiceLineItem {
	return &stripe.InvoiceLineItem{ID: id, Object: "line_item", Amount: amount, Currency: "usd", Quantity: 1,
		Period: &stripe.Period{Start: day(on), End: day(on)},
		Pricing: &stripe.InvoiceLineItemPricing{Type: "price_details",
			PriceDetails: &stripe.InvoiceLineItemPricingPriceDetails{Price: price}},
		Parent: &stripe.InvoiceLineItemParent{Type: stripe.InvoiceLineItemParentTypeInvoiceItemDetails,
			InvoiceItemDetails: &stripe.InvoiceLineItemParentInvoiceItemDetails{InvoiceItem: "ii_" + id}}}
}

func prorationLine(l *stripe.InvoiceLineItem) *stripe.InvoiceLineItem {
	l.Parent.SubscriptionItemDetails.Proration = true
	return l
}

func discounted(l *stripe.InvoiceLineItem, amount int64, coupon string) *stripe.InvoiceLineItem {
	l.Discountable = true
	l.DiscountAmounts = append(l.DiscountAmounts, &stripe.InvoiceLineItemDiscountAmount{Amount: amount,
		Discount: &stripe.Discount{ID: "di_" + coupon, Source: &stripe.DiscountSource{Type: "coupon",
			Coupon: &stripe.Coupon{ID: coupon}}}})
	return l
}

func taxed(l *stripe.InvoiceLineItem, amount, taxable int64, behavior stripe.InvoiceLineItemTaxTaxBehavior) *stripe.InvoiceLineItem {
	l.Taxes = append(l.Taxes, &stripe.InvoiceLineItemTax{Amount: amount, TaxableAmount: taxable,
		TaxBehavior: behavior, Type: "tax_rate_details"})
	return l
}

func inCurrency(l *stripe.InvoiceLineItem, c stripe.Currency) *stripe.InvoiceLineItem {
	l.Currency = c
	return l
}

// paidInvoice is an invoice of cus finalized and paid on finalized, for the sum of its lines.
func paidInvoice(id, finalized string, lines ...*stripe.InvoiceLineItem) *stripe.Invoice {
	inv := openInvoice(id, finalized, lines...)
	inv.Status = stripe.InvoiceStatusPaid
	inv.AmountPaid, inv.AmountRemaining = inv.AmountDue, 0
	inv.StatusTransitions.PaidAt = inv.StatusTransitions.FinalizedAt
	inv.Payments = &stripe.InvoicePaymentList{Data: []*stripe.InvoicePayment{{ID: "inpay_" + id, AmountPaid: inv.AmountDue,
		Currency: inv.Currency, Status: "paid", StatusTransitions: &stripe.InvoicePaymentStatusTransitions{PaidAt: day(finalized)}}}}
	return inv
}

func openInvoice(id, finalized string, lines ...*stripe.InvoiceLineItem) *stripe.Invoice {
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
		Created: day(finalized), Total: total, AmountDue: total, AmountRemaining: total,
		StatusTransitions: &stripe.InvoiceStatusTransitions{FinalizedAt: day(finalized)},
		Lines:             &stripe.InvoiceLineItemList{Data: lines}}
}

func withStatus(inv *stripe.Invoice, s stripe.InvoiceStatus) *stripe.Invoice {
	inv.Status = s
	return inv
}

// subscription is a Stripe subscription of cus_1 with one item per id.
func subscription(id string, items ...string) *stripe.Subscription {
	s := &stripe.Subscription{ID: id, Object: "subscription", Customer: &stripe.Customer{ID: "cus_1"},
		Status: stripe.SubscriptionStatusActive, Items: &stripe.SubscriptionItemList{}}
	for _, it := range items {
		s.Items.Data = append(s.Items.Data, &stripe.SubscriptionItem{ID: it, Subscription: id})
	}
	return s
}

// mapAll maps invoices (and their cancellations) into one set of records, as the import
// of one customer would carry them, and checks that a json_import accepts them.
func mapAll(t *testing.T, cat Catalog, invoices []*stripe.Invoice, extra Records) Records {
	t.Helper()
	var recs Records
	recs.Customers = append(recs.Customers, Customer(&stripe.Customer{ID: "cus_1", Created: day("2025-12-01")}, nil))
	seen := map[string]bool{}
	for _, inv := range invoices {
		r, err := Invoice(inv, nil, cat)
		if err != nil {
			t.Fatalf("Invoice(%s): %v", inv.ID, err)
		}
		// A plan goes into an import once.
		plans := r.Plans[:0]
		for _, p := range r.Plans {
			if !seen[p.ExternalID] {
				seen[p.ExternalID] = true
				plans = append(plans, p)
			}
		}
		r.Plans = plans
		recs.Add(r)
	}
	recs.Add(extra)
	recs.ExternalID = "stripe-test"
	body, err := json.Marshal(recs.ImportPayload)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.ParseImport(body); err != nil {
		t.Fatalf("a json_import refuses the records: %v\n%s", err, body)
	}
	return recs
}

// engineInput is what the recomputation would hand the engine once the records are stored.
func engineInput(recs Records, currency string, now time.Time) engine.Input {
	const ds = "ds_stripe"
	in := engine.Input{Now: now, Settings: engine.Settings{Currency: currency,
		ChurnRecognition: engine.ChurnAtCancellation, RefundHandling: engine.RefundIgnore}}
	for _, p := range recs.Plans {
		in.Plans = append(in.Plans, engine.Plan{UUID: p.ExternalID, ExternalID: p.ExternalID, Name: p.Name,
			IntervalCount: p.IntervalCount, IntervalUnit: p.IntervalUnit})
	}
	status := map[string]string{}
	for _, s := range recs.InvoiceStatuses {
		status[s.InvoiceExternalID] = s.Status
	}
	for _, inv := range recs.Invoices {
		out := engine.Invoice{UUID: inv.ExternalID, ExternalID: inv.ExternalID, DataSourceUUID: ds, Date: inv.Date,
			Currency: inv.Currency, Status: status[inv.ExternalID]}
		if inv.DueDate != nil {
			out.DueDate = *inv.DueDate
		}
		for _, li := range recs.LineItems {
			if li.InvoiceExternalID != inv.ExternalID {
				continue
			}
			out.LineItems = append(out.LineItems, engine.LineItem{UUID: li.ExternalID, ExternalID: li.ExternalID,
				Type: li.Type, SubscriptionExternalID: li.SubscriptionExternalID,
				SubscriptionSetExternalID: li.SubscriptionSetExternalID, PlanUUID: li.PlanExternalID,
				ServicePeriodStart: deref(li.ServicePeriodStart), ServicePeriodEnd: deref(li.ServicePeriodEnd),
				AmountInCents: li.AmountInCents, Quantity: li.Quantity, Prorated: li.Prorated,
				ProrationType: li.ProrationType, DiscountAmountInCents: li.DiscountAmountInCents,
				TaxAmountInCents: li.TaxAmountInCents})
		}
		for _, tr := range recs.Transactions {
			if tr.InvoiceExternalID == inv.ExternalID {
				out.Transactions = append(out.Transactions, engine.Transaction{UUID: tr.ExternalID, Type: tr.Type,
					Result: tr.Result, Date: tr.Date, AmountInCents: tr.AmountInCents})
			}
		}
		in.Invoices = append(in.Invoices, out)
	}
	for _, e := range recs.Events {
		out := engine.SubscriptionEvent{ID: e.ExternalID, DataSourceUUID: ds, SubscriptionExternalID: e.SubscriptionExternalID,
			EventType: e.EventType, EventDate: e.EventDate, EffectiveDate: e.EffectiveDate}
		if e.SubscriptionSetExternalID != nil {
			out.SubscriptionSetExternalID = *e.SubscriptionSetExternalID
		}
		if e.EventOrder != nil {
			out.EventOrder = int(*e.EventOrder)
		}
		in.Events = append(in.Events, out)
	}
	return in
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// mrrAt is the customer's MRR at instant t of the timeline.
func mrrAt(res engine.Result, t time.Time) int64 {
	var mrr int64
	for _, p := range res.MRRTimeline {
		if p.At.After(t) {
			break
		}
		mrr = p.MRR
	}
	return mrr
}

func payloadOfEvents(events []model.ImportEvent) model.ImportPayload {
	return model.ImportPayload{Events: events}
}

func withTransactions(p model.ImportPayload, ts ...model.ImportTransaction) model.ImportPayload {
	p.Transactions = append(p.Transactions, ts...)
	return p
}
