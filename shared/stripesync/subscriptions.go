package stripesync

import (
	"context"
	"maps"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripesource"
)

// subscription applies customer.subscription.created, .updated and .deleted: the
// prices of its items join the catalog (with their plans), the customer's trial start
// moves to the earliest seen, and the cancellation events of the change are applied.
// Those events depend on the event alone (its snapshot and previous attributes) and
// are keyed by item and date, so they are applied whatever order the events arrive in:
// their union is the same. The subscription's state keeps its items by price (for
// prorations billed as invoice items) and whether it ended.
func (a *applying) subscription(ctx context.Context, ev stripe.Event) error {
	var s *stripe.Subscription
	var events []model.ImportEvent
	if ev.Type == stripe.EventTypeCustomerSubscriptionCreated {
		s = &stripe.Subscription{}
		if err := stripesource.Object(ev, s); err != nil {
			return dropped("%v", err)
		}
		events = stripesource.Cancellations(s, false, time.Unix(ev.Created, 0))
	} else {
		var err error
		if s, events, err = stripesource.SubscriptionChanged(ev); err != nil {
			return dropped("%v", err)
		}
	}
	if s.Customer == nil || s.Customer.ID == "" {
		return dropped("subscription %s names no customer", s.ID)
	}
	customerID := s.Customer.ID
	var prices []*stripe.Price
	if s.Items != nil {
		for _, it := range s.Items.Data {
			if it.Price != nil && it.Price.ID != "" {
				prices = append(prices, it.Price)
			}
		}
	}
	if err := a.learnPrices(ctx, prices, ev.Created); err != nil {
		return err
	}
	objs, err := a.objects(ctx, s.ID, customerID)
	if err != nil {
		return err
	}
	sub, cus := objs[s.ID], objs[customerID]
	if a.gone(cus) {
		return nil
	}
	recs := stripesource.Records{ImportPayload: model.ImportPayload{Events: events}}
	nextCus := cus
	if s.TrialStart != 0 && (cus.TrialStart == 0 || s.TrialStart < cus.TrialStart) && !cus.Deleted {
		nextCus.TrialStart = s.TrialStart
		trial := time.Unix(s.TrialStart, 0).UTC()
		recs.Customers = []model.ImportCustomer{{ExternalID: customerID, FreeTrialStartedAt: &trial, LeadCreatedAt: &trial}}
	}
	if err := a.apply(ctx, customerID, recs); err != nil {
		return err
	}
	if err := a.stayAnonymised(ctx, cus); err != nil {
		return err
	}
	nextSub := sub
	nextSub.Customer = customerID
	nextSub.Items = maps.Clone(sub.Items)
	if s.Items != nil {
		for _, it := range s.Items.Data {
			if it.Price != nil {
				if nextSub.Items == nil {
					nextSub.Items = map[string]string{}
				}
				nextSub.Items[it.Price.ID] = it.ID
			}
		}
	}
	nextSub.Deleted = sub.Deleted || s.EndedAt != 0
	nextSub = applied(nextSub, ev.Created, 0)
	if err := a.save(ctx, sub, nextSub); err != nil {
		return err
	}
	return a.save(ctx, cus, nextCus)
}

// price applies price.created and .updated: the price joins the catalog and its plan is
// created or renamed, unless a later snapshot of it was applied.
func (a *applying) price(ctx context.Context, ev stripe.Event) error {
	var p stripe.Price
	if err := stripesource.Object(ev, &p); err != nil {
		return dropped("%v", err)
	}
	objs, err := a.objects(ctx, p.ID)
	if err != nil {
		return err
	}
	st := objs[p.ID]
	if stale(st, ev.Created, 0) {
		return nil
	}
	if err := a.storePrices(ctx, []*stripe.Price{&p}); err != nil {
		return err
	}
	return a.save(ctx, st, applied(st, ev.Created, 0))
}

// learnPrices adds to the catalog the prices it lacks or holds otherwise (a
// subscription carries its items' prices whole). A price event's own snapshot, when
// later, wins: a subscription's copy does not overwrite a price applied from a later
// price event.
func (a *applying) learnPrices(ctx context.Context, prices []*stripe.Price, created int64) error {
	if len(prices) == 0 {
		return nil
	}
	ids := make([]string, len(prices))
	for i, p := range prices {
		ids[i] = p.ID
	}
	known, err := a.Store.GetStripePrices(ctx, a.conn.AccountID, a.conn.DataSourceUUID, ids)
	if err != nil {
		return err
	}
	var changed []*stripe.Price
	for _, p := range prices {
		if k, ok := known[p.ID]; !ok || k != stripePrice(p) {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	var fresh []*stripe.Price
	objs, err := a.objects(ctx, pricesIDs(changed)...)
	if err != nil {
		return err
	}
	for _, p := range changed {
		if !stale(objs[p.ID], created, 0) {
			fresh = append(fresh, p)
		}
	}
	return a.storePrices(ctx, fresh)
}

func pricesIDs(ps []*stripe.Price) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// storePrices applies the plans of prices, then keeps the prices: a price in the
// catalog always has its plan.
func (a *applying) storePrices(ctx context.Context, prices []*stripe.Price) error {
	if len(prices) == 0 {
		return nil
	}
	var plans []model.ImportPlan
	out := make([]store.StripePrice, 0, len(prices))
	for _, p := range prices {
		if plan, ok, err := stripesource.Plan(p); err == nil && ok {
			plans = append(plans, plan)
		}
		out = append(out, stripePrice(p))
	}
	if err := a.plans(ctx, plans); err != nil {
		return err
	}
	return a.Store.PutStripePrices(ctx, a.conn.AccountID, a.conn.DataSourceUUID, out)
}

// stripePrice is what the catalog keeps of a price.
func stripePrice(p *stripe.Price) store.StripePrice {
	out := store.StripePrice{ID: p.ID, Currency: string(p.Currency), Nickname: p.Nickname, UnitAmount: p.UnitAmount,
		BillingScheme: string(p.BillingScheme)}
	if p.Product != nil {
		out.ProductName = p.Product.Name
	}
	if r := p.Recurring; r != nil {
		out.Interval, out.IntervalCount, out.UsageType, out.Meter = string(r.Interval), r.IntervalCount, string(r.UsageType), r.Meter
	}
	return out
}

// priceOf is a catalog price as the mapping reads it.
func priceOf(p store.StripePrice) *stripe.Price {
	out := &stripe.Price{ID: p.ID, Currency: stripe.Currency(p.Currency), Nickname: p.Nickname, UnitAmount: p.UnitAmount,
		BillingScheme: stripe.PriceBillingScheme(p.BillingScheme)}
	if p.ProductName != "" {
		out.Product = &stripe.Product{Name: p.ProductName}
	}
	if p.Interval != "" {
		out.Recurring = &stripe.PriceRecurring{Interval: stripe.PriceRecurringInterval(p.Interval), IntervalCount: p.IntervalCount,
			UsageType: stripe.PriceRecurringUsageType(p.UsageType), Meter: p.Meter}
	}
	return out
}
