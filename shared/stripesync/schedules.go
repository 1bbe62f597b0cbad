package stripesync

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource"
)

// schedule applies the subscription_schedule.* events, unless a later snapshot of the
// schedule was applied: the events its phases still to start schedule
// (stripesource.Schedule), and the retraction of every event an earlier snapshot
// scheduled that this one no longer does while its phase has not started (the schedule
// was released, canceled or changed). The schedule's state keeps what stands, by
// external id. A schedule of a subscription the sync has not seen yet waits for it
// (its items place the phase's items), as an invoice waits for a price.
func (a *applying) schedule(ctx context.Context, ev stripe.Event) error {
	var sc stripe.SubscriptionSchedule
	if err := stripesource.Object(ev, &sc); err != nil {
		return dropped("%v", err)
	}
	if sc.Customer == nil || sc.Customer.ID == "" {
		return dropped("subscription schedule %s names no customer", sc.ID)
	}
	customerID, subID := sc.Customer.ID, ""
	if sc.Subscription != nil {
		subID = sc.Subscription.ID
	}
	objs, err := a.objects(ctx, sc.ID, customerID, subID)
	if err != nil {
		return err
	}
	st, cus := objs[sc.ID], objs[customerID]
	if a.gone(cus) || stale(st, ev.Created, 0) {
		return nil
	}
	var items map[string]string
	if subID != "" {
		if objs[subID].Version == 0 && sc.Status == stripe.SubscriptionScheduleStatusActive && st.Misses < maxMisses {
			return a.miss(ctx, st, "subscription schedule %s: subscription %s not applied yet", sc.ID, subID)
		}
		items = objs[subID].Items
	}
	at := time.Unix(ev.Created, 0).UTC()
	cat, err := a.schedulePrices(ctx, &sc)
	if err != nil {
		return err
	}
	events, err := stripesource.Schedule(&sc, items, cat, at, at)
	if errors.Is(err, stripesource.ErrUnknownPrice) {
		return a.miss(ctx, st, "subscription schedule %s: %v", sc.ID, err)
	}
	if err != nil {
		return dropped("%v", err)
	}
	standing := map[string]string{}
	for _, e := range events {
		standing[e.ExternalID] = scheduledRef(e)
	}
	events = append(events, a.retractions(st.Items, standing, customerID, at)...)
	if len(events) > 0 {
		if err := a.apply(ctx, customerID, stripesource.Records{ImportPayload: model.ImportPayload{Events: events}}); err != nil {
			return err
		}
		if err := a.stayAnonymised(ctx, cus); err != nil {
			return err
		}
	}
	next := applied(st, ev.Created, 0)
	next.Customer, next.Items, next.Misses = customerID, standing, 0
	return a.save(ctx, st, next)
}

// scheduledRef is what a schedule's state keeps of an event it scheduled, to retract it
// later: its kind, subscription, set and effective date.
func scheduledRef(e model.ImportEvent) string {
	set := ""
	if e.SubscriptionSetExternalID != nil {
		set = *e.SubscriptionSetExternalID
	}
	return strings.Join([]string{e.EventType, e.SubscriptionExternalID, set, strconv.FormatInt(e.EffectiveDate.Unix(), 10)}, "|")
}

// retractions withdraw the events that were standing (by external id) and no longer
// are, unless their phase has started by at (then it happened: nothing to withdraw).
func (a *applying) retractions(was, now map[string]string, customerID string, at time.Time) []model.ImportEvent {
	var out []model.ImportEvent
	for id, ref := range was {
		if _, ok := now[id]; ok {
			continue
		}
		parts := strings.Split(ref, "|")
		if len(parts) != 4 {
			continue
		}
		effective, _ := strconv.ParseInt(parts[3], 10, 64)
		if effective <= at.Unix() {
			continue
		}
		out = append(out, stripesource.ScheduleRetraction(customerID, parts[2], parts[1], parts[0], id,
			model.ExternalEventID(a.conn.AccountID, a.conn.DataSourceUUID, id), at))
	}
	return out
}

// schedulePrices is the catalog of the prices a schedule's phases name by id (a price
// still unknown is left out: stripesource.ErrUnknownPrice then).
func (a *applying) schedulePrices(ctx context.Context, sc *stripe.SubscriptionSchedule) (stripesource.Catalog, error) {
	var ids []string
	for _, ph := range sc.Phases {
		if ph == nil {
			continue
		}
		for _, it := range ph.Items {
			if it != nil && it.Price != nil && it.Price.ID != "" && it.Price.Recurring == nil {
				ids = append(ids, it.Price.ID)
			}
		}
	}
	prices, err := a.knownPrices(ctx, ids)
	return stripesource.Catalog{Prices: prices}, err
}
