package stripesource

import (
	"errors"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

func TestLineItemFields(t *testing.T) {
	const excl, incl = stripe.InvoiceLineItemTaxTaxBehaviorExclusive, stripe.InvoiceLineItemTaxTaxBehaviorInclusive
	cat := catalog(meteredPrice("price_usage"), oneOffPrice("price_setup"))
	sub := subscription("sub_1", "si_1", "si_2")
	sub.Items.Data[0].Price = monthly("price_m")
	cat.AddSubscription(sub)
	pendingProration := itemLine("il_p", "price_m", -2500, "2026-04-16")
	pendingProration.Period.End = day("2026-05-01")
	pendingProration.Parent.InvoiceItemDetails.Proration, pendingProration.Parent.InvoiceItemDetails.Subscription = true, "sub_1"
	tests := []struct {
		name                            string
		line                            *stripe.InvoiceLineItem
		kind, sub, set, plan            string
		amount, tax, discount, quantity int64
		prorated                        bool
		code                            string
	}{
		{name: "plain", line: subLine("il", "sub_1", "si_1", "price_m", 5000, 2, "2026-01-01", "2026-02-01"),
			kind: "subscription", sub: "si_1", set: "sub_1", plan: "price_m", amount: 5000, quantity: 2},
		{name: "discount", line: discounted(subLine("il", "sub_1", "si_1", "price_m", 10000, 1, "2026-01-01", "2026-02-01"), 2000, "TWENTY"),
			kind: "subscription", sub: "si_1", set: "sub_1", plan: "price_m", amount: 8000, discount: 2000, quantity: 1, code: "TWENTY"},
		{name: "exclusive tax", line: taxed(subLine("il", "sub_1", "si_1", "price_m", 10000, 1, "2026-01-01", "2026-02-01"), 2000, 10000, excl),
			kind: "subscription", sub: "si_1", set: "sub_1", plan: "price_m", amount: 12000, tax: 2000, quantity: 1},
		{name: "inclusive tax and discount", line: taxed(discounted(subLine("il", "sub_1", "si_1", "price_m", 12000, 1, "2026-01-01", "2026-02-01"), 6000, "HALF"), 1000, 5000, incl),
			kind: "subscription", sub: "si_1", set: "sub_1", plan: "price_m", amount: 6000, tax: 1000, discount: 6000, quantity: 1, code: "HALF"},
		{name: "proration", line: prorationLine(subLine("il", "sub_1", "si_1", "price_m", -2500, 1, "2026-04-16", "2026-05-01")),
			kind: "subscription", sub: "si_1", set: "sub_1", plan: "price_m", amount: -2500, quantity: 1, prorated: true},
		{name: "proration billed as an invoice item", line: pendingProration,
			kind: "subscription", sub: "si_1", set: "sub_1", plan: "price_m", amount: -2500, quantity: 1, prorated: true},
		{name: "metered usage", line: subLine("il", "sub_1", "si_3", "price_usage", 3500, 3500, "2026-02-01", "2026-03-01"),
			kind: "one_time", amount: 3500, quantity: 3500},
		{name: "one-off invoice item", line: itemLine("il", "price_setup", 20000, "2026-02-01"),
			kind: "one_time", amount: 20000, quantity: 1},
		{name: "zero-decimal currency", line: inCurrency(subLine("il", "sub_1", "si_1", "price_m", 1000, 1, "2026-01-01", "2026-02-01"), "jpy"),
			kind: "subscription", sub: "si_1", set: "sub_1", plan: "price_m", amount: 100000, quantity: 1},
		{name: "three-decimal currency", line: inCurrency(subLine("il", "sub_1", "si_1", "price_m", 12340, 1, "2026-01-01", "2026-02-01"), "kwd"),
			kind: "subscription", sub: "si_1", set: "sub_1", plan: "price_m", amount: 1234, quantity: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := Invoice(paidInvoice("in_1", "2026-01-01", tc.line), nil, cat)
			if err != nil {
				t.Fatal(err)
			}
			li := recs.LineItems[0]
			want := model.LineItemFields{Type: tc.kind, SubscriptionExternalID: tc.sub, SubscriptionSetExternalID: tc.set,
				AmountInCents: tc.amount, TaxAmountInCents: tc.tax, DiscountAmountInCents: tc.discount, Quantity: tc.quantity,
				Prorated: tc.prorated, DiscountCode: tc.code}
			got := model.LineItemFields{Type: li.Type, SubscriptionExternalID: li.SubscriptionExternalID,
				SubscriptionSetExternalID: li.SubscriptionSetExternalID, AmountInCents: li.AmountInCents,
				TaxAmountInCents: li.TaxAmountInCents, DiscountAmountInCents: li.DiscountAmountInCents,
				Quantity: li.Quantity, Prorated: li.Prorated, DiscountCode: li.DiscountCode}
			if got != want || li.PlanExternalID != tc.plan {
				t.Errorf("got %+v plan %q\nwant %+v plan %q", got, li.PlanExternalID, want, tc.plan)
			}
		})
	}
}

func TestInvoiceFields(t *testing.T) {
	cat := catalog(monthly("price_m"))
	line := func() *stripe.InvoiceLineItem {
		return subLine("il", "sub_1", "si_1", "price_m", 5000, 1, "2026-01-01", "2026-02-01")
	}
	manual := openInvoice("in_1", "2026-01-03", line())
	manual.CollectionMethod, manual.DueDate, manual.Created = stripe.InvoiceCollectionMethodSendInvoice, day("2026-02-02"), day("2026-01-01")
	tests := []struct {
		name     string
		inv      *stripe.Invoice
		invoices int
		status   string
		method   string
		date     string
		payments int
	}{
		{name: "paid", inv: paidInvoice("in_1", "2026-01-01", line()), invoices: 1, method: "automatic", date: "2026-01-01", payments: 1},
		{name: "open, sent, dated when finalized", inv: manual, invoices: 1, method: "manual", date: "2026-01-03"},
		{name: "void", inv: withStatus(openInvoice("in_1", "2026-01-01", line()), stripe.InvoiceStatusVoid), invoices: 1,
			status: model.InvoiceVoided, method: "automatic", date: "2026-01-01"},
		{name: "uncollectible", inv: withStatus(openInvoice("in_1", "2026-01-01", line()), stripe.InvoiceStatusUncollectible), invoices: 1,
			status: model.InvoiceWrittenOff, method: "automatic", date: "2026-01-01"},
		{name: "draft", inv: withStatus(openInvoice("in_1", "2026-01-01", line()), stripe.InvoiceStatusDraft)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := Invoice(tc.inv, nil, cat)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs.Invoices) != tc.invoices || len(recs.Transactions) != tc.payments {
				t.Fatalf("%d invoices, %d transactions; want %d, %d", len(recs.Invoices), len(recs.Transactions), tc.invoices, tc.payments)
			}
			if tc.invoices == 0 {
				return
			}
			inv := recs.Invoices[0]
			if inv.CollectionMethod != tc.method || !inv.Date.Equal(at(tc.date)) || inv.Currency != "USD" || inv.CustomerExternalID != "cus_1" {
				t.Errorf("invoice %+v", inv)
			}
			var status string
			if len(recs.InvoiceStatuses) == 1 {
				status = recs.InvoiceStatuses[0].Status
			}
			if status != tc.status {
				t.Errorf("status %q, want %q", status, tc.status)
			}
		})
	}
}

func TestUnknownPrice(t *testing.T) {
	inv := paidInvoice("in_1", "2026-01-01", subLine("il", "sub_1", "si_1", "price_gone", 5000, 1, "2026-01-01", "2026-02-01"))
	if _, err := Invoice(inv, nil, catalog()); !errors.Is(err, ErrUnknownPrice) {
		t.Fatalf("err = %v, want ErrUnknownPrice", err)
	}
	// As a last resort the line is a one-off charge: cash flow, no MRR.
	cat := catalog()
	cat.UnknownPricesOneTime = true
	recs, err := Invoice(inv, nil, cat)
	if err != nil || len(recs.LineItems) != 1 || recs.LineItems[0].Type != "one_time" || len(recs.Plans) != 0 {
		t.Fatalf("with UnknownPricesOneTime: %+v, %v", recs, err)
	}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		price *stripe.Price
		unit  string
		count int
		ok    bool
	}{
		{recurring("p", stripe.PriceRecurringIntervalDay, 10), "day", 10, true},
		{recurring("p", stripe.PriceRecurringIntervalWeek, 2), "day", 14, true},
		{recurring("p", stripe.PriceRecurringIntervalMonth, 3), "month", 3, true},
		{recurring("p", stripe.PriceRecurringIntervalYear, 1), "year", 1, true},
		{oneOffPrice("p"), "", 0, false},
	}
	for _, tc := range tests {
		p, ok, err := Plan(tc.price)
		if err != nil || ok != tc.ok || p.IntervalUnit != tc.unit || p.IntervalCount != tc.count {
			t.Errorf("Plan(%+v) = %+v, %v, %v", tc.price.Recurring, p, ok, err)
		}
	}
}

func TestCustomerAndTransactions(t *testing.T) {
	trialing := subscription("sub_1", "si_1")
	trialing.TrialStart = day("2026-01-05")
	c := Customer(&stripe.Customer{ID: "cus_1", Name: "Ada", Email: "ada@example.com", Created: day("2026-01-01"),
		Address: &stripe.Address{Country: "GB", City: "London", PostalCode: "N1"}}, []*stripe.Subscription{trialing})
	if *c.Name != "Ada" || *c.Country != "GB" || *c.Zip != "N1" || c.State != nil ||
		!c.LeadCreatedAt.Equal(at("2026-01-05")) || !c.FreeTrialStartedAt.Equal(at("2026-01-05")) {
		t.Errorf("customer %+v", c)
	}
	inv := openInvoice("in_1", "2026-04-01", subLine("il", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01"))
	inv.AttemptCount = 2
	f := FailedPayment(inv, at("2026-04-03"))
	if f.Result != "failed" || *f.AmountInCents != 5000 || f.ExternalID != "in_1:failed:2" || !f.Date.Equal(at("2026-04-03")) {
		t.Errorf("failed payment %+v", f)
	}
	for _, tc := range []struct {
		status stripe.RefundStatus
		result string
		ok     bool
	}{{stripe.RefundStatusSucceeded, "successful", true}, {stripe.RefundStatusFailed, "failed", true}, {stripe.RefundStatusPending, "", false}} {
		r, ok := Refund(&stripe.Refund{ID: "re_1", Amount: 500, Currency: "jpy", Status: tc.status, Created: day("2026-04-05")}, "in_1")
		if ok != tc.ok || r.Result != tc.result || (ok && (*r.AmountInCents != 50000 || r.Type != "refund" || r.InvoiceExternalID != "in_1")) {
			t.Errorf("refund %s: %+v %v", tc.status, r, ok)
		}
	}
	p, ok := Payment(&stripe.InvoicePayment{ID: "inpay_1", Invoice: &stripe.Invoice{ID: "in_1"}, AmountPaid: 5000,
		Currency: "usd", Status: "paid", StatusTransitions: &stripe.InvoicePaymentStatusTransitions{PaidAt: day("2026-04-05")}})
	if !ok || p.ExternalID != "inpay_1" || *p.AmountInCents != 5000 || !p.Date.Equal(at("2026-04-05")) {
		t.Errorf("payment %+v %v", p, ok)
	}
}

func TestCancellations(t *testing.T) {
	ended := subscription("sub_1", "si_1", "si_2")
	ended.CanceledAt, ended.EndedAt = day("2026-03-10"), day("2026-04-01")
	scheduled := subscription("sub_1", "si_1")
	scheduled.CancelAtPeriodEnd, scheduled.CanceledAt = true, day("2026-03-10")
	scheduled.Items.Data[0].CurrentPeriodEnd = day("2026-04-01")
	at15 := at("2026-03-15")
	tests := []struct {
		name         string
		sub          *stripe.Subscription
		wasScheduled bool
		kinds        []string
		effective    time.Time
	}{
		{"ended", ended, false, []string{model.EventSubscriptionCancelled, model.EventSubscriptionCancelled}, at("2026-04-01")},
		{"scheduled", scheduled, false, []string{model.EventCancellationScheduled}, at("2026-04-01")},
		{"retracted", subscription("sub_1", "si_1"), true, []string{model.EventScheduledCancellationRetract}, at15},
		{"nothing", subscription("sub_1", "si_1"), false, nil, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := Cancellations(tc.sub, tc.wasScheduled, at15)
			if len(evs) != len(tc.kinds) {
				t.Fatalf("%d events, want %d", len(evs), len(tc.kinds))
			}
			for i, e := range evs {
				if e.EventType != tc.kinds[i] || !e.EffectiveDate.Equal(tc.effective) || *e.SubscriptionSetExternalID != "sub_1" ||
					e.CustomerExternalID != "cus_1" {
					t.Errorf("event %+v", e.EventFields)
				}
			}
			again := Cancellations(tc.sub, tc.wasScheduled, at15)
			for i := range evs {
				if evs[i].ExternalID != again[i].ExternalID {
					t.Errorf("external ids differ on a second mapping: %q, %q", evs[i].ExternalID, again[i].ExternalID)
				}
			}
		})
	}
}
