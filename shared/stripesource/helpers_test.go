package stripesource

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
)

var (
	day           = stripetest.Day
	at            = stripetest.At
	recurring     = stripetest.Recurring
	monthly       = stripetest.Monthly
	meteredPrice  = stripetest.MeteredPrice
	oneOffPrice   = stripetest.OneOffPrice
	subLine       = stripetest.SubLine
	itemLine      = stripetest.ItemLine
	prorationLine = stripetest.ProrationLine
	discounted    = stripetest.Discounted
	taxed         = stripetest.Taxed
	inCurrency    = stripetest.InCurrency
	paidInvoice   = stripetest.PaidInvoice
	openInvoice   = stripetest.OpenInvoice
	withStatus    = stripetest.WithStatus
	subscription  = stripetest.Subscription
)

func catalog(prices ...*stripe.Price) Catalog {
	c := Catalog{Prices: map[string]*stripe.Price{}}
	for _, p := range prices {
		c.Prices[p.ID] = p
	}
	return c
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
