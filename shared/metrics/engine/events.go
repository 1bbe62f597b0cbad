package engine

import "slices"

// liveEvents drops retracted events and the retraction events themselves. A typed retraction
// without retracted_event_id withdraws the latest earlier event of the matching scheduled type
// for the same subscription.
func liveEvents(events []SubscriptionEvent) []SubscriptionEvent {
	idx := make([]int, len(events))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := events[a].EventDate.Compare(events[b].EventDate); c != 0 {
			return c
		}
		return events[a].EventOrder - events[b].EventOrder
	})
	retracted := make([]bool, len(events))
	byID := map[string]int{}
	for _, i := range idx {
		e := events[i]
		if e.ID != "" {
			byID[e.ID] = i
		}
		if e.Retracted {
			retracted[i] = true
			continue
		}
		target, typed := retractionTarget(e.EventType)
		if e.EventType != EventRetracted && !typed {
			continue
		}
		retracted[i] = true // retraction events carry no change of their own
		if e.RetractedEventID != "" {
			if j, ok := byID[e.RetractedEventID]; ok {
				retracted[j] = true
			}
			continue
		}
		if !typed {
			continue
		}
		// Latest earlier, still standing event of the target type on the same subscription.
		best := -1
		for _, j := range idx {
			o := events[j]
			if o.EventDate.After(e.EventDate) {
				break
			}
			if !retracted[j] && o.EventType == target && o.DataSourceUUID == e.DataSourceUUID &&
				o.SubscriptionExternalID == e.SubscriptionExternalID {
				best = j
			}
		}
		if best >= 0 {
			retracted[best] = true
		}
	}
	var out []SubscriptionEvent
	for i, e := range events {
		if !retracted[i] {
			out = append(out, e)
		}
	}
	return out
}

func retractionTarget(eventType string) (string, bool) {
	switch eventType {
	case EventStartRetracted:
		return EventStartScheduled, true
	case EventUpdateRetracted:
		return EventUpdateScheduled, true
	case EventCancellationRetracted:
		return EventCancellationScheduled, true
	}
	return "", false
}

// applyEvents adds event cancellations to the subscriptions' histories and turns start and
// update events that take effect after Now into committed (scheduled) steps. Start and update
// events dated up to Now have no MRR effect: the invoice that follows carries it (ambiguity A4).
func applyEvents(in Input, byKey map[string]*subscription, plans map[string]Plan) {
	for _, e := range liveEvents(in.Events) {
		s := byKey[subscriptionKey(e.DataSourceUUID, e.SubscriptionExternalID)]
		if s == nil {
			continue
		}
		switch e.EventType {
		case EventCancelled, EventCancellationScheduled:
			s.cancellations = append(s.cancellations, in.cancellationDate(e))
		case EventStart, EventStartScheduled, EventUpdated, EventUpdateScheduled:
			if !e.EffectiveDate.After(in.Now) {
				continue
			}
			plan, ok := plans[e.PlanUUID]
			if !ok {
				continue
			}
			it := LineItem{AmountInCents: e.AmountInCents, TaxAmountInCents: e.TaxAmountInCents}
			cents, err := lineMRR(it, plan, false)
			if err != nil {
				continue
			}
			pr, err := priceOn(in, cents, e.Currency, e.EffectiveDate)
			if err != nil {
				continue
			}
			s.committed = append(s.committed, &step{at: e.EffectiveDate, order: e.EventOrder, kind: stepSet,
				sub: s, price: pr, plan: plan, quantity: e.Quantity, seq: 1 << 30})
		}
	}
}
