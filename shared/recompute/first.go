package recompute

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// NewCustomer is a customer the import creates, with the records it writes for it.
type NewCustomer struct {
	Customer      model.Customer
	Invoices      []model.Invoice
	Subscriptions []model.Subscription
	Events        []model.SubscriptionEvent
	// Plans are the plans the records may use (the import's plans of the data source).
	Plans []model.Plan
}

// WithFirstFigures returns the customer with what its first recomputation will write
// on its item (MRR, ARR, status, customer since, billing currencies, active quantity,
// the auto-churn tag), computed as that recomputation computes it but from the records
// in memory, before they are stored. The import creates the item with them: the
// recomputation, which still runs and computes the same from the stored records, then
// finds the item up to date instead of writing it a second time (and writes it when
// anything differs, a plan or rate changed in between). A new customer has no
// connected subscriptions. Rates of foreign currencies are read from st.
func WithFirstFigures(ctx context.Context, st store.FXRates, acc model.Account, now time.Time, nc NewCustomer) (model.Customer, error) {
	cust := nc.Customer
	invoices := make(map[string]model.Invoice, len(nc.Invoices))
	for _, inv := range nc.Invoices {
		invoices[inv.UUID] = inv
	}
	var recs Records
	for _, id := range slices.Sorted(maps.Keys(invoices)) {
		recs.Invoices = append(recs.Invoices, engineInvoice(invoices[id]))
	}
	subs := slices.SortedFunc(slices.Values(nc.Subscriptions), func(a, b model.Subscription) int { return cmp.Compare(a.UUID, b.UUID) })
	for _, sub := range subs {
		if h, ok := cancellationHistory(sub, invoices); ok {
			recs.CancellationHistory = append(recs.CancellationHistory, h)
		}
	}
	byExternalID := map[[2]string]model.Plan{}
	for _, p := range nc.Plans {
		byExternalID[[2]string{p.DataSourceUUID, p.ExternalID}] = p
	}
	events := slices.SortedFunc(slices.Values(nc.Events), func(a, b model.SubscriptionEvent) int { return cmp.Compare(a.ID, b.ID) })
	for _, e := range events {
		planUUID := ""
		if e.PlanExternalID != nil {
			planUUID = byExternalID[[2]string{e.DataSourceUUID, *e.PlanExternalID}].UUID
		}
		recs.Events = append(recs.Events, engineEvent(acc.ID, e, planUUID))
	}
	// The plans the records use, in the order loadPlans reads them.
	byUUID := map[string]model.Plan{}
	for _, p := range nc.Plans {
		byUUID[p.UUID] = p
	}
	var plans []engine.Plan
	use := func(uuid string) {
		if p, ok := byUUID[uuid]; ok && !slices.ContainsFunc(plans, func(q engine.Plan) bool { return q.UUID == uuid }) {
			plans = append(plans, enginePlan(p))
		}
	}
	for _, inv := range recs.Invoices {
		for _, li := range inv.LineItems {
			use(li.PlanUUID)
		}
	}
	for _, ev := range recs.Events {
		use(ev.PlanUUID)
	}
	rates, err := loadRates(ctx, st, acc.ID, acc.Currency, recs)
	if err != nil {
		return cust, err
	}
	in, planByUUID := newInput(now, acc, plans, rates, nil, recs)
	next := newSnapshot(customerView{accountID: acc.ID, customerUUID: cust.UUID, currency: acc.Currency, plans: planByUUID},
		cust.Country, engine.Compute(in))
	m := customerMetrics(cust, next, nil)
	cust.MRR, cust.ARR, cust.Status, cust.CustomerSince = m.MRR, m.ARR, m.Status, m.CustomerSince
	cust.BillingCurrencies, cust.ActiveQuantity = m.BillingCurrencies, m.ActiveQuantity
	cust.Tags = append(slices.Clone(cust.Tags), m.AddTags...)
	return cust, nil
}
