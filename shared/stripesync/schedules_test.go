package stripesync_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/recompute"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
	"github.com/subsight/subsight/shared/stripesync"
	"github.com/subsight/subsight/shared/stripewebhook"
)

// TestScheduleEventsQueued: the webhook keeps the event types the sync applies.
func TestScheduleEventsQueued(t *testing.T) {
	for _, kind := range append(slices.Clone(stripesync.ScheduleEvents), stripe.EventTypeRefundFailed) {
		if !stripewebhook.Queued[kind] {
			t.Errorf("%s is applied but not queued", kind)
		}
	}
}

// priced is a licensed monthly price of unit amount cents.
func priced(id string, cents int64) *stripe.Price {
	p := stripetest.Monthly(id)
	p.UnitAmount, p.BillingScheme = cents, stripe.PriceBillingSchemePerUnit
	return p
}

// schedule is subscription schedule sub_sched_1 of cus_1 with one phase per start date
// (each with one item at the price of that index, quantity 1), created on created.
func schedule(status stripe.SubscriptionScheduleStatus, sub string, created string, starts []string, prices []string) *stripe.SubscriptionSchedule {
	sc := &stripe.SubscriptionSchedule{ID: "sub_sched_1", Object: "subscription_schedule", Customer: &stripe.Customer{ID: "cus_1"},
		Status: status, Created: day(created)}
	if sub != "" {
		sc.Subscription = &stripe.Subscription{ID: sub}
	}
	for i, start := range starts {
		ph := &stripe.SubscriptionSchedulePhase{StartDate: day(start), Currency: "usd",
			Items: []*stripe.SubscriptionSchedulePhaseItem{{Price: &stripe.Price{ID: prices[i]}, Quantity: 1}}}
		if i+1 < len(starts) {
			ph.EndDate = day(starts[i+1])
		}
		sc.Phases = append(sc.Phases, ph)
	}
	return sc
}

// committed is the customer's engine result computed at the start of the day on: its
// Scheduled movements are its committed MRR.
func committed(t *testing.T, env *testenv.Env, conn model.StripeConnection, on string) engine.Result {
	t.Helper()
	rc := recompute.New(env.Deps.Store, nil, func() time.Time { return stripetest.At(on) })
	res, err := rc.Compute(context.Background(), conn.AccountID, customer(t, env, conn, "cus_1").UUID)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

type scheduledMove struct {
	On     string
	Type   string
	Amount int64
}

func scheduledMoves(res engine.Result) []scheduledMove {
	var out []scheduledMove
	for _, m := range res.Movements {
		if m.Scheduled {
			out = append(out, scheduledMove{m.At.UTC().Format(time.DateOnly), m.Type, m.Amount})
		}
	}
	return out
}

// scheduledDowngrade is scenario 11: $150 a month from Apr 1, a schedule made on Apr 10
// moves it to $50 from May 1 (its second phase), the May invoice bills $50 and the
// schedule is released once its last phase began.
func scheduledDowngrade(h *history) {
	p150, p50 := priced("price_150", 15000), priced("price_50", 5000)
	h.add(stripe.EventTypePriceCreated, "2026-04-01", p50, nil)
	s := h.subscribe("2026-04-01", []*stripe.Price{p150})
	h.pay(stripetest.PaidInvoice("in_apr", "2026-04-01", stripetest.SubLine("il_apr", "sub_1", "si_1", "price_150", 15000, 1, "2026-04-01", "2026-05-01")))
	sc := schedule(stripe.SubscriptionScheduleStatusActive, "sub_1", "2026-04-10", []string{"2026-04-01", "2026-05-01"}, []string{"price_150", "price_50"})
	h.add(stripe.EventTypeSubscriptionScheduleCreated, "2026-04-10", sc, nil)
	down := *s
	down.Items = &stripe.SubscriptionItemList{Data: []*stripe.SubscriptionItem{{ID: "si_1", Subscription: "sub_1", Price: p50, Quantity: 1}}}
	h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-05-01", &down, map[string]any{
		"items": map[string]any{"data": []any{map[string]any{"id": "si_1", "price": map[string]any{"id": "price_150"}}}}})
	h.pay(stripetest.PaidInvoice("in_may", "2026-05-01", stripetest.SubLine("il_may", "sub_1", "si_1", "price_50", 5000, 1, "2026-05-01", "2026-06-01")))
	released := *sc
	released.Status, released.ReleasedAt = stripe.SubscriptionScheduleStatusReleased, day("2026-05-01")
	h.add(stripe.EventTypeSubscriptionScheduleReleased, "2026-05-01", &released, nil)
}

// until are the events created before the start of the day on.
func until(events []stripe.Event, on string) []stripe.Event {
	var out []stripe.Event
	for _, ev := range events {
		if ev.Created < day(on) {
			out = append(out, ev)
		}
	}
	return out
}

// TestScheduleCommittedMRR: committed MRR shows a schedule's downgrade from the day it
// was scheduled, MRR moves only with the invoice that bills it, and what a schedule
// released or canceled before its phase had scheduled is withdrawn, in any order.
func TestScheduleCommittedMRR(t *testing.T) {
	var h history
	scheduledDowngrade(&h)
	contraction := []scheduledMove{{"2026-05-01", engine.Contraction, -10000}}

	t.Run("scenario 11", func(t *testing.T) {
		env := newEnv(t)
		conn := connect(t, env, "schedules-11")
		s := newSync(env.Deps)
		steps := []struct {
			through, at string
			want        []scheduledMove
			mrr         int64
		}{
			{"2026-04-10", "2026-04-05", nil, 15000},         // before the schedule
			{"2026-04-11", "2026-04-20", contraction, 15000}, // scheduled on Apr 10
		}
		for _, st := range steps {
			if err := deliver(s, conn, until(h.events, st.through)); err != nil {
				t.Fatal(err)
			}
			res := committed(t, env, conn, st.at)
			if got := scheduledMoves(res); !slices.Equal(got, st.want) || res.MRR != st.mrr {
				t.Errorf("on %s: MRR %d, committed %v; want %d, %v", st.at, res.MRR, got, st.mrr, st.want)
			}
		}
		// The release once its phase began withdraws nothing.
		if err := deliver(s, conn, h.events[len(h.events)-1:]); err != nil {
			t.Fatal(err)
		}
		if res := committed(t, env, conn, "2026-04-20"); !slices.Equal(scheduledMoves(res), contraction) {
			t.Errorf("after the release: committed %v", scheduledMoves(res))
		}
		if err := deliver(s, conn, h.events); err != nil {
			t.Fatal(err)
		}
		drain(t, env)
		for _, c := range []mrrCheck{{"2026-04-15", 15000}, {"2026-04-30", 15000}, {"2026-05-01", 5000}, {"2026-05-15", 5000}} {
			if got := mrrOn(t, env, conn.AccountID, c.on); got != c.mrr {
				t.Errorf("MRR on %s = %d, want %d", c.on, got, c.mrr)
			}
		}
		// Delivered again, nothing new.
		before := len(storedEvents(t, env, conn))
		if err := deliver(newSync(env.Deps), conn, h.events); err != nil {
			t.Fatal(err)
		}
		if after := len(storedEvents(t, env, conn)); after != before {
			t.Errorf("redelivery: %d subscription events, was %d", after, before)
		}
	})

	// A schedule released (or canceled) on Apr 15, before its phase, withdraws the
	// downgrade; the release delivered first makes the older creation stale.
	sc := schedule(stripe.SubscriptionScheduleStatusActive, "sub_1", "2026-04-10", []string{"2026-04-01", "2026-05-01"}, []string{"price_150", "price_50"})
	for _, end := range []struct {
		kind   stripe.EventType
		status stripe.SubscriptionScheduleStatus
	}{{stripe.EventTypeSubscriptionScheduleReleased, stripe.SubscriptionScheduleStatusReleased},
		{stripe.EventTypeSubscriptionScheduleCanceled, stripe.SubscriptionScheduleStatusCanceled}} {
		ended := *sc
		ended.Status = end.status
		base := until(h.events, "2026-04-11")
		withdrawn := stripetest.Event("evt_end", end.kind, day("2026-04-15"), &ended, nil)
		for name, events := range map[string][]stripe.Event{
			"in order": append(slices.Clone(base), withdrawn),
			"reversed": append(append(slices.Clone(base[:len(base)-1]), withdrawn), base[len(base)-1]),
		} {
			t.Run(string(end.kind)+" "+name, func(t *testing.T) {
				env := newEnv(t)
				conn := connect(t, env, "schedules-withdrawn")
				if err := deliver(newSync(env.Deps), conn, events); err != nil {
					t.Fatal(err)
				}
				if got := scheduledMoves(committed(t, env, conn, "2026-04-20")); len(got) != 0 {
					t.Errorf("committed %v, want nothing", got)
				}
			})
		}
	}

	// A schedule that has not started its subscription yet schedules its start: $50 × 2
	// from Jun 1, announced on May 10.
	t.Run("not started", func(t *testing.T) {
		env := newEnv(t)
		conn := connect(t, env, "schedules-start")
		var h history
		h.add(stripe.EventTypeCustomerCreated, "2026-05-10", &stripe.Customer{ID: "cus_1", Name: "Ada", Created: day("2026-05-10")}, nil)
		h.add(stripe.EventTypePriceCreated, "2026-05-10", priced("price_50", 5000), nil)
		future := schedule(stripe.SubscriptionScheduleStatusNotStarted, "", "2026-05-10", []string{"2026-06-01"}, []string{"price_50"})
		future.Phases[0].Items[0].Quantity = 2
		h.add(stripe.EventTypeSubscriptionScheduleCreated, "2026-05-10", future, nil)
		if err := deliver(newSync(env.Deps), conn, h.events); err != nil {
			t.Fatal(err)
		}
		want := []scheduledMove{{"2026-06-01", engine.NewBusiness, 10000}}
		if got := scheduledMoves(committed(t, env, conn, "2026-05-15")); !slices.Equal(got, want) {
			t.Errorf("committed %v, want %v", got, want)
		}
	})
}

// storedEvents are cus_1's subscription events.
func storedEvents(t *testing.T, env *testenv.Env, conn model.StripeConnection) []engine.SubscriptionEvent {
	t.Helper()
	recs, err := recompute.StoreRecords{Store: env.Deps.Store}.CustomerRecords(context.Background(), conn.AccountID,
		customer(t, env, conn, "cus_1").UUID)
	if err != nil {
		t.Fatal(err)
	}
	return recs.Events
}
