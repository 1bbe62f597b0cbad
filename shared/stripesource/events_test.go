package stripesource

import (
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
)

const testSecret = "whsec_events_test"

// delivery is one webhook delivery: an event wrapping a stripe-go object, signed with
// stripe-go's test helper when it was created.
type delivery struct {
	id, kind, created string
	object            any
	previous          map[string]any
}

func (d delivery) signed(t *testing.T) ([]byte, string) {
	t.Helper()
	payload := stripetest.EventPayload(d.id, stripe.EventType(d.kind), day(d.created), d.object, d.previous)
	return payload, webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: testSecret,
		Timestamp: at(d.created)}).Header
}

// apply verifies each delivery and maps its object as the webhook endpoint would.
func apply(t *testing.T, cat Catalog, deliveries []delivery) Records {
	t.Helper()
	var recs Records
	for _, d := range deliveries {
		payload, header := d.signed(t)
		v := Verifier{Now: func() time.Time { return at(d.created).Add(time.Second) }}
		ev, err := v.Verify(payload, header, testSecret)
		if err != nil {
			t.Fatalf("%s: %v", d.id, err)
		}
		switch ev.Type {
		case stripe.EventTypeInvoicePaid, stripe.EventTypeInvoiceFinalized:
			var inv stripe.Invoice
			if err := Object(ev, &inv); err != nil {
				t.Fatal(err)
			}
			r, err := Invoice(&inv, nil, cat)
			if err != nil {
				t.Fatal(err)
			}
			recs.Add(r)
		case stripe.EventTypeCustomerSubscriptionUpdated, stripe.EventTypeCustomerSubscriptionDeleted:
			_, events, err := SubscriptionChanged(ev)
			if err != nil {
				t.Fatal(err)
			}
			recs.Events = append(recs.Events, events...)
		default:
			t.Fatalf("unexpected event type %s", ev.Type)
		}
	}
	return recs
}

// TestSignedEvents: scenario 12 and its variants, delivered as signed events.
func TestSignedEvents(t *testing.T) {
	cat := catalog(monthly("price_m"), monthly("price_addon"))
	march := paidInvoice("in_3", "2026-03-01", subLine("il_3", "sub_1", "si_1", "price_m", 5000, 1, "2026-03-01", "2026-04-01"))
	april := paidInvoice("in_4", "2026-04-01", subLine("il_4", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01"))
	marchWithAddon := paidInvoice("in_3", "2026-03-01", subLine("il_3", "sub_1", "si_1", "price_m", 5000, 1, "2026-03-01", "2026-04-01"),
		subLine("il_3b", "sub_1", "si_2", "price_addon", 2500, 1, "2026-03-01", "2026-04-01"))
	sub := func(mut func(*stripe.Subscription)) *stripe.Subscription {
		s := subscription("sub_1", "si_1")
		s.Items.Data[0].CurrentPeriodStart, s.Items.Data[0].CurrentPeriodEnd = day("2026-03-01"), day("2026-04-01")
		mut(s)
		return s
	}
	scheduled := sub(func(s *stripe.Subscription) { s.CancelAtPeriodEnd, s.CanceledAt = true, day("2026-03-10") })
	ended := sub(func(s *stripe.Subscription) {
		s.Status, s.CanceledAt, s.EndedAt = stripe.SubscriptionStatusCanceled, day("2026-03-10"), day("2026-04-01")
	})
	kept := sub(func(*stripe.Subscription) {})
	moved := sub(func(s *stripe.Subscription) { s.CancelAt, s.CanceledAt = day("2026-05-01"), day("2026-03-10") })
	withoutAddon := sub(func(*stripe.Subscription) {})
	scheduleAt := delivery{"evt_2", "customer.subscription.updated", "2026-03-10", scheduled, map[string]any{"cancel_at_period_end": false}}
	tests := []struct {
		name       string
		deliveries []delivery
		checks     []mrrCheck
	}{
		{"scheduled, then ended at period end", []delivery{
			{"evt_1", "invoice.paid", "2026-03-01", march, nil}, scheduleAt,
			{"evt_3", "customer.subscription.deleted", "2026-04-01", ended, nil}},
			[]mrrCheck{{"2026-03-20", 5000}, {"2026-04-01", 0}}},
		{"scheduled, delivered after the end (out of order)", []delivery{
			{"evt_3", "customer.subscription.deleted", "2026-04-01", ended, nil},
			{"evt_1", "invoice.paid", "2026-03-01", march, nil}, scheduleAt},
			[]mrrCheck{{"2026-03-20", 5000}, {"2026-04-01", 0}}},
		{"scheduled, then retracted and renewed", []delivery{
			{"evt_1", "invoice.paid", "2026-03-01", march, nil}, scheduleAt,
			{"evt_3", "customer.subscription.updated", "2026-03-20", kept, map[string]any{"cancel_at_period_end": true, "canceled_at": day("2026-03-10")}},
			{"evt_4", "invoice.paid", "2026-04-01", april, nil}},
			[]mrrCheck{{"2026-03-20", 5000}, {"2026-04-15", 5000}, {"2026-05-15", 5000}}},
		{"scheduled, then moved a month later", []delivery{
			{"evt_1", "invoice.paid", "2026-03-01", march, nil}, scheduleAt,
			{"evt_3", "customer.subscription.updated", "2026-03-20", moved, map[string]any{"cancel_at_period_end": true, "cancel_at": day("2026-04-01")}},
			{"evt_4", "invoice.paid", "2026-04-01", april, nil}},
			[]mrrCheck{{"2026-04-15", 5000}, {"2026-05-01", 0}}},
		{"add-on removed mid-period", []delivery{
			{"evt_1", "invoice.paid", "2026-03-01", marchWithAddon, nil},
			{"evt_2", "customer.subscription.updated", "2026-03-15", withoutAddon,
				map[string]any{"items": map[string]any{"object": "list", "data": []any{map[string]any{"id": "si_1"}, map[string]any{"id": "si_2"}}}}}},
			[]mrrCheck{{"2026-03-10", 7500}, {"2026-03-15", 5000}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := apply(t, cat, tc.deliveries)
			res := engine.Compute(engineInput(recs, "USD", at("2027-01-01")))
			for _, c := range tc.checks {
				if got := mrrAt(res, at(c.on).Add(12*time.Hour)); got != c.mrr {
					t.Errorf("MRR on %s = %d, want %d (timeline %+v)", c.on, got, c.mrr, res.MRRTimeline)
				}
			}
		})
	}
}
