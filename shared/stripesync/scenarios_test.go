package stripesync_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
	"github.com/subsight/subsight/shared/stripesync"
)

type mrrCheck struct {
	on  string
	mrr int64
}

// scenario is a Stripe account's history and the MRR ChartMogul shows for it.
type scenario struct {
	name  string
	build func(h *history)
	rates []store.FXRate
	// settings are the connection's (model.DefaultStripeSettings without).
	settings *model.StripeSettings
	checks   []mrrCheck
	// verify checks the stored records further.
	verify func(t *testing.T, env *testenv.Env, conn model.StripeConnection)
}

var (
	priceM    = stripetest.Monthly("price_m")
	priceM2   = stripetest.Monthly("price_m2")
	priceYear = stripetest.Recurring("price_year", stripe.PriceRecurringIntervalYear, 1)
)

func scenarios() []scenario {
	line := stripetest.SubLine
	return []scenario{
		{name: "1 new subscription, $50 x 3 seats", build: func(h *history) {
			h.subscribe("2026-01-10", []*stripe.Price{priceM})
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-10", line("il_1", "sub_1", "si_1", "price_m", 15000, 3, "2026-01-10", "2026-02-10")))
		}, checks: []mrrCheck{{"2026-01-09", 0}, {"2026-01-10", 15000}, {"2026-02-05", 15000}},
			verify: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
				c := customer(t, env, conn, "cus_1")
				if c.Name != "Ada Lovelace" || c.Country != "GB" || c.LeadCreatedAt == nil || !c.LeadCreatedAt.Equal(stripetest.At("2026-01-10")) {
					t.Errorf("customer %+v", c)
				}
			}},
		{name: "2 renewal at the same price", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM})
			h.monthly("2026-01-01", 3, "price_m", 5000)
		}, checks: []mrrCheck{{"2026-01-15", 5000}, {"2026-02-15", 5000}, {"2026-03-15", 5000}}},
		{name: "9 upgrade mid-cycle, prorations on the next invoice", build: func(h *history) {
			s := h.subscribe("2026-04-01", []*stripe.Price{priceM})
			h.monthly("2026-04-01", 1, "price_m", 5000)
			up := *s
			up.Items = &stripe.SubscriptionItemList{Data: []*stripe.SubscriptionItem{{ID: "si_1", Subscription: "sub_1", Price: priceM2, Quantity: 1}}}
			h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-04-16", &up, map[string]any{
				"items": map[string]any{"data": []any{map[string]any{"id": "si_1", "price": map[string]any{"id": "price_m"}}}}})
			h.pay(stripetest.PaidInvoice("in_2", "2026-05-01",
				stripetest.ProrationLine(line("il_2a", "sub_1", "si_1", "price_m", -2500, 1, "2026-04-16", "2026-05-01")),
				stripetest.ProrationLine(line("il_2b", "sub_1", "si_1", "price_m2", 7500, 1, "2026-04-16", "2026-05-01")),
				line("il_2c", "sub_1", "si_1", "price_m2", 15000, 1, "2026-05-01", "2026-06-01")))
		}, checks: []mrrCheck{{"2026-04-10", 5000}, {"2026-04-20", 15000}, {"2026-05-15", 15000}}},
		{name: "12 cancellation at period end", build: cancelAtPeriodEnd,
			checks: []mrrCheck{{"2026-03-20", 5000}, {"2026-03-31", 5000}, {"2026-04-02", 0}}},
		{name: "12 cancellation at period end, churn at period end", build: cancelAtPeriodEnd,
			settings: withSettings(func(s *model.StripeSettings) { s.ChurnRecognition = "churn_at_period_end" }),
			checks:   []mrrCheck{{"2026-03-20", 5000}, {"2026-03-31", 5000}, {"2026-04-02", 0}}},
		{name: "12 cancellation at period end, churn as soon as scheduled", build: cancelAtPeriodEnd,
			settings: withSettings(func(s *model.StripeSettings) { s.ChurnRecognition = "churn_at_click" }),
			checks:   []mrrCheck{{"2026-03-09", 5000}, {"2026-03-10", 0}, {"2026-03-31", 0}, {"2026-04-02", 0}}},
		{name: "16 free trial, then paid", build: func(h *history) {
			h.add(stripe.EventTypeCustomerCreated, "2026-01-01", &stripe.Customer{ID: "cus_1", Created: day("2026-01-01")}, nil)
			s := stripetest.Subscription("sub_1", "si_1")
			s.Status, s.TrialStart, s.TrialEnd = stripe.SubscriptionStatusTrialing, day("2026-01-01"), day("2026-01-15")
			s.Items.Data[0].Price = priceM
			h.add(stripe.EventTypeCustomerSubscriptionCreated, "2026-01-01", s, nil)
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-01", line("il_1", "sub_1", "si_1", "price_m", 0, 1, "2026-01-01", "2026-01-15")))
			h.pay(stripetest.PaidInvoice("in_2", "2026-01-15", line("il_2", "sub_1", "si_1", "price_m", 5000, 1, "2026-01-15", "2026-02-15")))
		}, checks: []mrrCheck{{"2026-01-10", 0}, {"2026-01-20", 5000}},
			verify: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
				c := customer(t, env, conn, "cus_1")
				if c.FreeTrialStartedAt == nil || !c.FreeTrialStartedAt.Equal(stripetest.At("2026-01-01")) {
					t.Errorf("free trial started %v", c.FreeTrialStartedAt)
				}
			}},
		{name: "14 failed renewal, then paid", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM})
			h.monthly("2026-01-01", 3, "price_m", 5000)
			inv := stripetest.PaidInvoice("in_4", "2026-04-01", line("il_4", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01"))
			failing := stripetest.OpenInvoice("in_4", "2026-04-01", line("il_4", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01"))
			failing.AttemptCount = 1
			h.add(stripe.EventTypeInvoicePaymentFailed, "2026-04-01", failing, nil)
			inv.Payments.Data[0].StatusTransitions.PaidAt = day("2026-04-05")
			h.pay(inv)
		}, checks: []mrrCheck{{"2026-03-15", 5000}, {"2026-04-03", 5000}, {"2026-04-15", 5000}},
			verify: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
				inv := invoice(t, env, conn, "in_4")
				results := map[string]string{}
				for _, tr := range inv.Transactions {
					results[tr.ExternalID] = tr.Result
				}
				if results["in_4:failed:1"] != "failed" || results["inpay_in_4"] != "successful" {
					t.Errorf("transactions %+v", inv.Transactions)
				}
			}},
		{name: "13 immediate cancellation with a full refund", build: refundedAnnual(120000),
			checks: []mrrCheck{{"2026-02-15", 10000}, {"2026-03-16", 0}},
			verify: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
				inv := invoice(t, env, conn, "in_1")
				for _, tr := range inv.Transactions {
					if tr.ExternalID == "re_1" && tr.Type == "refund" && tr.Result == "successful" {
						return
					}
				}
				t.Errorf("no refund in %+v", inv.Transactions)
			}},
		{name: "13 immediate cancellation with a full refund, churn at period end", build: refundedAnnual(120000),
			settings: withSettings(func(s *model.StripeSettings) { s.ChurnRecognition = "churn_at_period_end" }),
			checks:   []mrrCheck{{"2026-02-15", 10000}, {"2026-03-16", 10000}, {"2026-12-31", 10000}, {"2027-01-01", 0}}},
		{name: "13 immediate cancellation with a full refund, full refunds never paid", build: refundedAnnual(120000),
			settings: withSettings(func(s *model.StripeSettings) { s.RefundHandling = "refund_full_only" }),
			checks:   []mrrCheck{{"2026-01-15", 0}, {"2026-02-15", 0}, {"2026-03-16", 0}},
			verify:   neverSubscribed},
		{name: "13 immediate cancellation with a partial refund, full refunds never paid", build: refundedAnnual(95000),
			settings: withSettings(func(s *model.StripeSettings) { s.RefundHandling = "refund_full_only" }),
			checks:   []mrrCheck{{"2026-01-15", 10000}, {"2026-02-15", 10000}, {"2026-03-16", 0}}},
		{name: "15 first invoice voided", build: voidedFirstInvoice, checks: []mrrCheck{{"2026-02-15", 0}, {"2026-03-15", 0}},
			verify: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
				if inv := invoice(t, env, conn, "in_1"); inv.Status != model.InvoiceVoided {
					t.Errorf("status %q", inv.Status)
				}
				neverSubscribed(t, env, conn)
			}},
		{name: "15 first invoice voided, created when issued, voided prevented", build: voidedFirstInvoice,
			settings: withSettings(func(s *model.StripeSettings) { s.InvoiceHandling.Manual.CreateSubscriptionWhenInvoiceIs = "open" }),
			checks:   []mrrCheck{{"2026-02-15", 0}, {"2026-03-15", 0}}, verify: neverSubscribed},
		{name: "15 first invoice voided, created when issued, voided not prevented", build: voidedFirstInvoice,
			settings: withSettings(func(s *model.StripeSettings) {
				s.InvoiceHandling.Manual.CreateSubscriptionWhenInvoiceIs, s.InvoiceHandling.Manual.PreventSubscriptionForInvoiceVoided = "open", false
			}),
			checks: []mrrCheck{{"2026-01-31", 0}, {"2026-02-15", 5000}, {"2026-03-15", 5000}}},
		{name: "first invoice open and unpaid: a lead", build: unpaidFirstInvoice(""),
			checks: []mrrCheck{{"2026-02-15", 0}, {"2026-03-15", 0}}, verify: neverSubscribed},
		{name: "first invoice paid later: MRR from the period start", build: unpaidFirstInvoice("2026-02-20"),
			checks: []mrrCheck{{"2026-01-31", 0}, {"2026-02-05", 5000}, {"2026-02-25", 5000}}},
		{name: "4 base + add-on + setup fee + metered usage", build: func(h *history) {
			h.subscribe("2026-02-01", []*stripe.Price{stripetest.Monthly("price_base"), stripetest.Monthly("price_addon"),
				stripetest.MeteredPrice("price_usage")}, "si_A", "si_B", "si_C")
			h.pay(stripetest.PaidInvoice("in_1", "2026-02-01",
				line("il_1a", "sub_1", "si_A", "price_base", 10000, 1, "2026-02-01", "2026-03-01"),
				line("il_1b", "sub_1", "si_B", "price_addon", 5000, 1, "2026-02-01", "2026-03-01"),
				stripetest.ItemLine("il_1c", "price_setup", 20000, "2026-02-01")))
			h.pay(stripetest.PaidInvoice("in_2", "2026-03-01",
				line("il_2a", "sub_1", "si_A", "price_base", 10000, 1, "2026-03-01", "2026-04-01"),
				line("il_2b", "sub_1", "si_B", "price_addon", 5000, 1, "2026-03-01", "2026-04-01"),
				line("il_2c", "sub_1", "si_C", "price_usage", 3500, 3500, "2026-02-01", "2026-03-01")))
		}, checks: []mrrCheck{{"2026-02-15", 15000}, {"2026-03-15", 15000}}},
		{name: "17 EUR customer, USD account", build: func(h *history) {
			eur := stripetest.Monthly("price_eur")
			eur.Currency = "eur"
			h.subscribe("2026-05-01", []*stripe.Price{eur})
			h.pay(stripetest.PaidInvoice("in_1", "2026-05-01",
				stripetest.InCurrency(line("il_1", "sub_1", "si_1", "price_eur", 10000, 1, "2026-05-01", "2026-06-01"), "eur")))
		}, rates: []store.FXRate{{Day: "2026-05-01", Currency: "EUR", Rate: "1.09086"}},
			checks: []mrrCheck{{"2026-05-15", 10908}}},
		{name: "19 customer deleted in Stripe, kept anonymised", build: deletedCustomer,
			checks: []mrrCheck{{"2026-03-15", 5000}, {"2026-04-11", 0}},
			verify: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
				c := customer(t, env, conn, "cus_1")
				if c.Name != "" || c.Email != "" || c.Country != "" || c.City != "" || len(c.Tags) != 1 || c.Tags[0] != stripesync.DeletedCustomerTag {
					t.Errorf("customer %+v", c)
				}
			}},
		{name: "19 customer deleted in Stripe, deleted", build: deletedCustomer, settings: deleteSettings(),
			checks: []mrrCheck{{"2026-03-15", 0}, {"2026-04-11", 0}},
			verify: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
				_, err := env.Deps.Store.CustomerUUIDByExternalID(context.Background(), conn.AccountID, conn.DataSourceUUID, "cus_1")
				if !errors.Is(err, store.ErrNotFound) {
					t.Errorf("customer still there: %v", err)
				}
			}},
	}
}

// cancelAtPeriodEnd: a $50 monthly subscription from March 1st whose cancellation at the
// period's end is asked for on March 10th (canceled_at); it ends on April 1st.
func cancelAtPeriodEnd(h *history) {
	s := h.subscribe("2026-03-01", []*stripe.Price{priceM})
	h.monthly("2026-03-01", 1, "price_m", 5000)
	scheduled := *s
	scheduled.CancelAtPeriodEnd, scheduled.CanceledAt = true, day("2026-03-10")
	scheduled.Items = &stripe.SubscriptionItemList{Data: []*stripe.SubscriptionItem{{ID: "si_1", Subscription: "sub_1",
		Price: priceM, Quantity: 1, CurrentPeriodEnd: day("2026-04-01")}}}
	h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-03-10", &scheduled, map[string]any{"cancel_at_period_end": false})
	ended := scheduled
	ended.Status, ended.EndedAt = stripe.SubscriptionStatusCanceled, day("2026-04-01")
	h.add(stripe.EventTypeCustomerSubscriptionDeleted, "2026-04-01", &ended, nil)
}

// refundedAnnual: a $1,200 annual subscription paid on January 1st, cancelled at once on
// March 15th, when amount of it is refunded.
func refundedAnnual(amount int64) func(h *history) {
	return func(h *history) {
		s := h.subscribe("2026-01-01", []*stripe.Price{priceYear})
		h.pay(stripetest.PaidInvoice("in_1", "2026-01-01", stripetest.SubLine("il_1", "sub_1", "si_1", "price_year", 120000, 1, "2026-01-01", "2027-01-01")))
		ended := *s
		ended.Status, ended.CanceledAt, ended.EndedAt = stripe.SubscriptionStatusCanceled, day("2026-03-15"), day("2026-03-15")
		h.add(stripe.EventTypeCustomerSubscriptionDeleted, "2026-03-15", &ended, nil)
		h.add(stripe.EventTypeRefundCreated, "2026-03-15", &stripe.Refund{ID: "re_1", Amount: amount, Currency: "usd",
			Status: stripe.RefundStatusSucceeded, Created: day("2026-03-15"), PaymentIntent: &stripe.PaymentIntent{ID: "pi_in_1"}}, nil)
	}
}

// voidedFirstInvoice: a new customer's first invoice, $50 sent to be paid (send_invoice)
// on February 1st, never paid and voided on February 28th.
func voidedFirstInvoice(h *history) {
	h.subscribe("2026-02-01", []*stripe.Price{priceM})
	inv := stripetest.OpenInvoice("in_1", "2026-02-01", stripetest.SubLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-02-01", "2026-03-01"))
	inv.CollectionMethod = stripe.InvoiceCollectionMethodSendInvoice
	h.add(stripe.EventTypeInvoiceFinalized, "2026-02-01", inv, nil)
	void := *inv
	void.Status = stripe.InvoiceStatusVoid
	h.add(stripe.EventTypeInvoiceVoided, "2026-02-28", &void, nil)
}

// unpaidFirstInvoice: a new customer's first invoice, $50 charged automatically from
// February 1st, open; paid on paidOn unless it is "".
func unpaidFirstInvoice(paidOn string) func(h *history) {
	return func(h *history) {
		h.subscribe("2026-02-01", []*stripe.Price{priceM})
		line := stripetest.SubLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-02-01", "2026-03-01")
		if paidOn == "" {
			h.add(stripe.EventTypeInvoiceFinalized, "2026-02-01", stripetest.OpenInvoice("in_1", "2026-02-01", line), nil)
			return
		}
		inv := stripetest.PaidInvoice("in_1", "2026-02-01", line)
		inv.Payments.Data[0].StatusTransitions.PaidAt = day(paidOn)
		h.pay(inv)
	}
}

// neverSubscribed: cus_1 is a lead, never a subscriber.
func neverSubscribed(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
	t.Helper()
	if c := customer(t, env, conn, "cus_1"); !model.IsLead(c.Status) || c.CustomerSince != nil || c.MRR != 0 {
		t.Errorf("customer status %q, since %v, MRR %d: want a lead", c.Status, c.CustomerSince, c.MRR)
	}
}

// deletedCustomer: a $50 monthly subscriber since January, deleted in Stripe on April
// 10th, which ends its subscription at that instant.
func deletedCustomer(h *history) {
	s := h.subscribe("2026-01-01", []*stripe.Price{priceM})
	h.monthly("2026-01-01", 3, "price_m", 5000)
	h.add(stripe.EventTypeCustomerDeleted, "2026-04-10", &stripe.Customer{ID: "cus_1", Deleted: true}, nil)
	ended := *s
	ended.Status = stripe.SubscriptionStatusCanceled
	ended.CanceledAt = h.events[len(h.events)-1].Created
	ended.EndedAt = ended.CanceledAt
	h.add(stripe.EventTypeCustomerSubscriptionDeleted, "2026-04-10", &ended, nil)
}

// TestScenariosMRR applies each scenario's events, built with stripe-go's types, to an
// account of its own, runs the recomputations they asked for, and reads the MRR from the
// Metrics API. Some scenarios are also delivered in other orders (reversed, shuffled),
// each to an account of its own: every order ends in the same stored records and MRR.
func TestScenariosMRR(t *testing.T) {
	env := newEnv(t)
	recomputes := &coalescing{to: env.Deps.Jobs, asked: map[string]jobs.Message{}}
	s := newSync(env.Deps)
	s.Jobs = recomputes
	type run struct {
		sc     scenario
		order  string
		conn   model.StripeConnection
		events []stripe.Event
	}
	var runs []*run
	reordered := map[string]bool{"9 upgrade mid-cycle, prorations on the next invoice": true, "12 cancellation at period end": true,
		"13 immediate cancellation with a full refund": true, "14 failed renewal, then paid": true,
		"19 customer deleted in Stripe, kept anonymised": true}
	for _, sc := range scenarios() {
		var h history
		sc.build(&h)
		runs = append(runs, &run{sc: sc, order: "as created", events: h.events})
		if !reordered[sc.name] {
			continue
		}
		reversed := slices.Clone(h.events)
		slices.Reverse(reversed)
		runs = append(runs, &run{sc: sc, order: "reversed", events: reversed})
		shuffled := slices.Clone(h.events)
		rand.New(rand.NewPCG(uint64(len(runs)), 7)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		runs = append(runs, &run{sc: sc, order: "shuffled", events: shuffled})
	}
	for _, r := range runs {
		r.conn = connect(t, env, r.sc.name+" "+r.order)
		if r.sc.settings != nil {
			r.conn.Settings = *r.sc.settings
		}
		if err := env.Deps.Store.PutStripeConnection(context.Background(), r.conn); err != nil {
			t.Fatal(err)
		}
		if len(r.sc.rates) > 0 {
			if err := env.Deps.Store.PutFXRates(context.Background(), r.conn.AccountID, r.sc.rates); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Accounts apart: their events are applied at once, as the queue's groups are.
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Go(func() { errs[i] = deliver(s, r.conn, r.events) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	recomputes.flush(t)
	drain(t, env)
	first := map[string]string{}
	for _, r := range runs {
		t.Run(r.sc.name+", "+r.order, func(t *testing.T) {
			for _, c := range r.sc.checks {
				if got := mrrOn(t, env, r.conn.AccountID, c.on); got != c.mrr {
					t.Errorf("MRR on %s = %d, want %d", c.on, got, c.mrr)
				}
			}
			if r.sc.verify != nil {
				r.sc.verify(t, env, r.conn)
			}
			if !reordered[r.sc.name] {
				return
			}
			p := projection(t, env, r.conn, r.events)
			if want, ok := first[r.sc.name]; ok && p != want {
				t.Errorf("stored records differ from the events applied in order:\n got %s\nwant %s", p, want)
			} else if !ok {
				first[r.sc.name] = p
			}
		})
	}
}

// deleteSettings are the defaults with deleted customers removed.
func deleteSettings() *model.StripeSettings {
	return withSettings(func(s *model.StripeSettings) { s.DeletedCustomers = "delete" })
}

// withSettings are the defaults changed by change.
func withSettings(change func(*model.StripeSettings)) *model.StripeSettings {
	s := model.DefaultStripeSettings()
	change(&s)
	return &s
}
