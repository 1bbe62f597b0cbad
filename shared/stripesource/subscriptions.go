package stripesource

import (
	"strconv"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

// Cancellations are the subscription events of a Stripe subscription's cancellation, one
// per subscription item (each item is a subscription of its own, the Stripe subscription
// their set): subscription_cancelled at ended_at once it ended; while it is only
// scheduled (cancel_at_period_end or cancel_at), subscription_cancellation_scheduled
// effective at cancel_at, else at the item's period end. wasScheduled says that the change
// at at altered a cancellation scheduled before it (the event's previous attributes name
// cancel_at_period_end true or a cancel_at): that one is retracted at at, and a
// cancellation still scheduled is scheduled again just after. External ids derive from
// the item and the dates, so a redelivered event writes the same events again.
func Cancellations(s *stripe.Subscription, wasScheduled bool, at time.Time) []model.ImportEvent {
	if s.Items == nil {
		return nil
	}
	var out []model.ImportEvent
	for _, it := range s.Items.Data {
		switch {
		case s.EndedAt != 0:
			out = append(out, ItemEnded(s, it.ID, time.Unix(s.EndedAt, 0)))
		case s.CancelAtPeriodEnd || s.CancelAt != 0:
			effective := s.CancelAt
			if effective == 0 {
				effective = it.CurrentPeriodEnd
			}
			if effective == 0 {
				continue // no date to schedule it at
			}
			decided := *firstSet(s.CanceledAt, effective)
			if wasScheduled {
				// A retraction withdraws the latest scheduled cancellation decided at or
				// before its own date: the new one is dated a second later to stay.
				out = append(out, retraction(s, it.ID, at))
				decided = at.UTC().Add(time.Second)
			}
			out = append(out, event(s, it.ID, model.EventCancellationScheduled, decided, *unix(effective),
				it.ID+":cancellation_scheduled:"+strconv.FormatInt(effective, 10)))
		case wasScheduled:
			out = append(out, retraction(s, it.ID, at))
		}
	}
	return out
}

// ItemEnded is the cancellation of one subscription item at at: the whole subscription
// ended, or the item was removed from it (the event's previous attributes list it, the
// subscription no longer does).
func ItemEnded(s *stripe.Subscription, itemID string, at time.Time) model.ImportEvent {
	decided := at.UTC()
	if s.CanceledAt != 0 && s.CanceledAt <= at.Unix() {
		decided = *unix(s.CanceledAt)
	}
	return event(s, itemID, model.EventSubscriptionCancelled, decided, at.UTC(),
		itemID+":cancelled:"+strconv.FormatInt(at.Unix(), 10))
}

func retraction(s *stripe.Subscription, itemID string, at time.Time) model.ImportEvent {
	return event(s, itemID, model.EventScheduledCancellationRetract, at.UTC(), at.UTC(),
		itemID+":cancellation_retracted:"+strconv.FormatInt(at.Unix(), 10))
}

func event(s *stripe.Subscription, itemID, kind string, decided, effective time.Time, externalID string) model.ImportEvent {
	set := s.ID
	return model.ImportEvent{EventFields: model.EventFields{CustomerExternalID: customerID(s.Customer),
		EventType: kind, EventDate: decided, EffectiveDate: effective, SubscriptionExternalID: itemID,
		SubscriptionSetExternalID: &set, ExternalID: externalID}}
}
