package stripesource

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

func unitPrice(id string, cents int64, currency stripe.Currency) *stripe.Price {
	p := monthly(id)
	p.UnitAmount, p.Currency = cents, currency
	return p
}

func phase(start string, items ...*stripe.SubscriptionSchedulePhaseItem) *stripe.SubscriptionSchedulePhase {
	return &stripe.SubscriptionSchedulePhase{StartDate: day(start), Items: items}
}

func phaseItem(price string, qty int64) *stripe.SubscriptionSchedulePhaseItem {
	return &stripe.SubscriptionSchedulePhaseItem{Price: &stripe.Price{ID: price}, Quantity: qty}
}

// TestSchedule: the events a schedule's phases to come write, item by item.
func TestSchedule(t *testing.T) {
	cat := catalog(unitPrice("price_a", 5000, "usd"), unitPrice("price_b", 2000, "usd"), unitPrice("price_c", 1000, "usd"),
		unitPrice("price_jpy", 1000, "jpy"), meteredPrice("price_usage"))
	tiered := unitPrice("price_tiered", 0, "usd")
	tiered.BillingScheme = stripe.PriceBillingSchemeTiered
	cat.Prices[tiered.ID] = tiered
	sched := func(status stripe.SubscriptionScheduleStatus, phases ...*stripe.SubscriptionSchedulePhase) *stripe.SubscriptionSchedule {
		sc := &stripe.SubscriptionSchedule{ID: "sub_sched_1", Customer: &stripe.Customer{ID: "cus_1"}, Status: status, Phases: phases}
		if status != stripe.SubscriptionScheduleStatusNotStarted {
			sc.Subscription = &stripe.Subscription{ID: "sub_1"}
		}
		return sc
	}
	type ev struct {
		Kind, Sub, Plan string
		Amount, Qty     int64
		Effective       string
	}
	upd, start := model.EventSubscriptionUpdateScheduled, model.EventSubscriptionStartScheduled
	cases := []struct {
		name  string
		sc    *stripe.SubscriptionSchedule
		items map[string]string
		want  []ev
	}{
		{"same price, more seats", sched(stripe.SubscriptionScheduleStatusActive, phase("2026-04-01", phaseItem("price_a", 1)),
			phase("2026-05-01", phaseItem("price_a", 3))), map[string]string{"price_a": "si_1"},
			[]ev{{upd, "si_1", "price_a", 15000, 3, "2026-05-01"}}},
		{"price change of the one item", sched(stripe.SubscriptionScheduleStatusActive, phase("2026-05-01", phaseItem("price_b", 0))),
			map[string]string{"price_a": "si_1"}, []ev{{upd, "si_1", "price_b", 2000, 1, "2026-05-01"}}},
		{"an add-on added", sched(stripe.SubscriptionScheduleStatusActive,
			phase("2026-05-01", phaseItem("price_a", 1), phaseItem("price_b", 1), phaseItem("price_c", 2))),
			map[string]string{"price_a": "si_1"},
			[]ev{{upd, "si_1", "price_a", 5000, 1, "2026-05-01"}, {start, "sub_sched_1:price_b", "price_b", 2000, 1, "2026-05-01"},
				{start, "sub_sched_1:price_c", "price_c", 2000, 2, "2026-05-01"}}},
		{"not started, then changed", sched(stripe.SubscriptionScheduleStatusNotStarted,
			phase("2026-05-01", phaseItem("price_a", 1)), phase("2026-06-01", phaseItem("price_b", 1))), nil,
			[]ev{{start, "sub_sched_1:price_a", "price_a", 5000, 1, "2026-05-01"}, {upd, "sub_sched_1:price_a", "price_b", 2000, 1, "2026-06-01"}}},
		{"no MRR: metered, tiered; zero-decimal currency", sched(stripe.SubscriptionScheduleStatusActive,
			phase("2026-05-01", phaseItem("price_usage", 1), phaseItem("price_tiered", 1), phaseItem("price_jpy", 1))),
			map[string]string{"price_usage": "si_u", "price_tiered": "si_t", "price_jpy": "si_j"},
			[]ev{{upd, "si_j", "price_jpy", 100000, 1, "2026-05-01"}}},
		{"released", sched(stripe.SubscriptionScheduleStatusReleased, phase("2026-05-01", phaseItem("price_b", 1))),
			map[string]string{"price_a": "si_1"}, nil},
		{"the phase began", sched(stripe.SubscriptionScheduleStatusActive, phase("2026-04-01", phaseItem("price_b", 1))),
			map[string]string{"price_a": "si_1"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events, err := Schedule(c.sc, c.items, cat, at("2026-04-10"), at("2026-04-10"))
			if err != nil {
				t.Fatal(err)
			}
			var got []ev
			for _, e := range events {
				got = append(got, ev{e.EventType, e.SubscriptionExternalID, *e.PlanExternalID, *e.AmountInCents, *e.Quantity,
					e.EffectiveDate.Format("2006-01-02")})
				set := "sub_sched_1"
				if c.sc.Subscription != nil {
					set = c.sc.Subscription.ID
				}
				if *e.SubscriptionSetExternalID != set ||
					!e.EventDate.Equal(at("2026-04-10")) || !strings.HasPrefix(e.ExternalID, "sub_sched_1:") {
					t.Errorf("event %+v", e.EventFields)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("events\n%+v\nwant\n%+v", got, c.want)
			}
			if len(events) > 0 {
				p := payloadOfEvents(events)
				p.ExternalID = "stripe-test"
				body, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := model.ParseImport(body); err != nil {
					t.Errorf("a json_import refuses them: %v", err)
				}
			}
		})
	}
	_, err := Schedule(sched(stripe.SubscriptionScheduleStatusActive, phase("2026-05-01", phaseItem("price_x", 1))), nil, cat,
		at("2026-04-10"), at("2026-04-10"))
	if !errors.Is(err, ErrUnknownPrice) {
		t.Errorf("an unknown price: %v", err)
	}
}
