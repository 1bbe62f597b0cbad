package stripesource

import (
	"slices"
	"strconv"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

// Schedule is what a subscription schedule has scheduled as it stood at at (the
// creation of its event, or the backfill's read): for each phase starting after at, one
// event per item of the phase, effective at the phase's start and decided at decided,
// with the phase's price × quantity as its amount and the price as its plan. They feed
// committed MRR only; the invoice of the phase makes the change real. A schedule that
// has not started its subscription yet (not_started) schedules its start (first phase)
// and the updates after it; a released, canceled or completed schedule schedules
// nothing. items are the live subscription's item ids by price id.
//
// A phase item is an item of the subscription: the one with the same price, else, when
// the phase and the subscription each have exactly one item left, that item (a price
// change); else a new item of the set, scheduled to start (its id derived from the
// schedule and the price, as Stripe gives the item its id only when the phase starts).
// Prices that carry no MRR (metered, tiered, one-off) schedule nothing. External ids
// derive from the schedule, the phase's start and the item, so the same schedule mapped
// again writes the same events.
func Schedule(sc *stripe.SubscriptionSchedule, items map[string]string, cat Catalog, at, decided time.Time) ([]model.ImportEvent, error) {
	switch sc.Status {
	case stripe.SubscriptionScheduleStatusActive, stripe.SubscriptionScheduleStatusNotStarted:
	default:
		return nil, nil
	}
	set := sc.ID
	if sc.Subscription != nil && sc.Subscription.ID != "" {
		set = sc.Subscription.ID
	}
	phases := slices.Clone(sc.Phases)
	slices.SortFunc(phases, func(a, b *stripe.SubscriptionSchedulePhase) int { return int(a.StartDate - b.StartDate) })
	var out []model.ImportEvent
	for i, ph := range phases {
		if ph == nil || ph.StartDate <= at.Unix() {
			continue
		}
		starts := sc.Status == stripe.SubscriptionScheduleStatusNotStarted && i == 0
		placed := placeItems(ph.Items, items, starts)
		if starts {
			// The later phases change the items the first one starts.
			items = map[string]string{}
		}
		for _, pi := range placed {
			if starts {
				items[pi.price.ID] = sc.ID + ":" + pi.price.ID
			}
			p := pi.price
			if p.Recurring == nil {
				var err error
				if p, err = cat.price(p.ID); err != nil {
					return nil, err
				}
			}
			e, ok := scheduledEvent(sc, set, ph, pi, p, decided)
			if ok {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// placedItem is a phase item with the subscription item it schedules.
type placedItem struct {
	price    *stripe.Price // as the phase names it: its id, or the whole price when expanded
	item     string
	quantity int64
	start    bool
}

func placeItems(phase []*stripe.SubscriptionSchedulePhaseItem, items map[string]string, starts bool) []placedItem {
	var out []placedItem
	var loose []int // phase items without an item of their price
	used := map[string]bool{}
	for _, it := range phase {
		if it == nil || it.Price == nil || it.Price.ID == "" {
			continue
		}
		p := placedItem{price: it.Price, quantity: max(it.Quantity, 1), start: starts}
		if id, ok := items[p.price.ID]; ok && !starts {
			p.item, used[id] = id, true
		} else {
			loose = append(loose, len(out))
		}
		out = append(out, p)
	}
	var free []string
	for _, id := range items {
		if !used[id] {
			free = append(free, id)
		}
	}
	slices.Sort(free)
	if len(loose) == 1 && len(free) == 1 && !starts {
		out[loose[0]].item = free[0]
		loose = nil
	}
	for _, i := range loose {
		out[i].start = true
	}
	return out
}

func scheduledEvent(sc *stripe.SubscriptionSchedule, set string, ph *stripe.SubscriptionSchedulePhase, pi placedItem, p *stripe.Price,
	decided time.Time) (model.ImportEvent, bool) {
	if p.Recurring == nil || metered(p) || p.BillingScheme == stripe.PriceBillingSchemeTiered {
		return model.ImportEvent{}, false
	}
	kind, sub := model.EventSubscriptionUpdateScheduled, pi.item
	if pi.start {
		kind, sub = model.EventSubscriptionStartScheduled, sc.ID+":"+p.ID
	}
	currency := string(ph.Currency)
	if currency == "" {
		currency = string(p.Currency)
	}
	currency = currencyCode(currency)
	amount, quantity, plan := cents(p.UnitAmount*pi.quantity, currency), pi.quantity, p.ID
	return model.ImportEvent{EventFields: model.EventFields{CustomerExternalID: customerID(sc.Customer), EventType: kind,
		EventDate: decided.UTC(), EffectiveDate: *unix(ph.StartDate), SubscriptionExternalID: sub, SubscriptionSetExternalID: &set,
		ExternalID:     sc.ID + ":" + strconv.FormatInt(ph.StartDate, 10) + ":" + sub,
		PlanExternalID: &plan, Currency: &currency, AmountInCents: &amount, Quantity: &quantity}}, true
}

// ScheduleRetraction withdraws a scheduled event (of kind on subscription sub of set,
// with external id externalID and the id it was stored with) at at: its schedule was
// released or canceled, or changed, before its phase started.
func ScheduleRetraction(customer, set, sub, kind, externalID string, id int64, at time.Time) model.ImportEvent {
	retraction := model.EventScheduledUpdateRetracted
	if kind == model.EventSubscriptionStartScheduled {
		retraction = model.EventScheduledStartRetracted
	}
	return model.ImportEvent{EventFields: model.EventFields{CustomerExternalID: customer, EventType: retraction,
		EventDate: at.UTC(), EffectiveDate: at.UTC(), SubscriptionExternalID: sub, SubscriptionSetExternalID: &set,
		ExternalID: externalID + ":retracted:" + strconv.FormatInt(at.Unix(), 10), RetractedEventID: &id}}
}
