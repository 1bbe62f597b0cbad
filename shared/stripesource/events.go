package stripesource

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

// Object decodes the object of a verified event into v (*stripe.Invoice,
// *stripe.Subscription, ...), as it was when the event was generated.
func Object(ev stripe.Event, v any) error {
	if ev.Data == nil || len(ev.Data.Raw) == 0 {
		return fmt.Errorf("stripesource: event %s has no object", ev.ID)
	}
	if err := json.Unmarshal(ev.Data.Raw, v); err != nil {
		return fmt.Errorf("stripesource: event %s: %w", ev.ID, err)
	}
	return nil
}

// SubscriptionChanged is the subscription of a customer.subscription.updated or
// .deleted event with its cancellation events: those of Cancellations, the retraction of
// a scheduled cancellation the change cleared, and the end of every item the change
// removed, at the event's creation (the previous attributes say what was there before).
func SubscriptionChanged(ev stripe.Event) (*stripe.Subscription, []model.ImportEvent, error) {
	var s stripe.Subscription
	if err := Object(ev, &s); err != nil {
		return nil, nil, err
	}
	at := time.Unix(ev.Created, 0).UTC()
	prev := ev.Data.PreviousAttributes
	out := Cancellations(&s, wasScheduled(prev), at)
	for _, id := range removedItems(prev, &s) {
		out = append(out, ItemEnded(&s, id, at))
	}
	return &s, out, nil
}

// wasScheduled: the previous attributes show a cancellation at period end or a cancel_at
// that the change cleared.
func wasScheduled(prev map[string]any) bool {
	if v, ok := prev["cancel_at_period_end"].(bool); ok && v {
		return true
	}
	v, ok := prev["cancel_at"]
	return ok && v != nil
}

// removedItems are the items the previous attributes list and the subscription no longer
// has, sorted.
func removedItems(prev map[string]any, s *stripe.Subscription) []string {
	items, _ := prev["items"].(map[string]any)
	data, _ := items["data"].([]any)
	var out []string
	for _, d := range data {
		it, _ := d.(map[string]any)
		id, _ := it["id"].(string)
		if id != "" && !hasItem(s, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func hasItem(s *stripe.Subscription, id string) bool {
	if s.Items == nil {
		return false
	}
	return slices.ContainsFunc(s.Items.Data, func(it *stripe.SubscriptionItem) bool { return it.ID == id })
}
