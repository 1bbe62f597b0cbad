package stripesync_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
	"github.com/subsight/subsight/shared/workers"
)

// move is one MRR movement of a customer, as its Metrics-API activities list it.
type move struct {
	kind   string // new_biz, expansion, contraction, churn, reactivation
	on     string // its UTC day
	amount int64
}

// story is a scenario with what the Metrics API shows of customer cus_1 once every
// event is applied: its movements (exactly these, oldest first) and its status now.
type story struct {
	scenario
	moves  []move
	status string // "" is not checked
	// reversed also delivers the events in the reverse order, to an account of its own.
	reversed bool
}

var (
	priceWeek = stripetest.Recurring("price_week", stripe.PriceRecurringIntervalWeek, 1)
	priceM100 = stripetest.Monthly("price_m100")
	priceM120 = stripetest.Monthly("price_m120")
)

// moreScenarios are Stripe histories beyond those of scenarios(), at the default
// settings, with what ChartMogul shows for them (docs/stripe.md, "Worked examples").
func moreScenarios() []story {
	line := stripetest.SubLine
	month := func(id, price string, amount, qty int64, from, to string) *stripe.InvoiceLineItem {
		return line(id, "sub_1", "si_1", price, amount, qty, from, to)
	}
	return []story{
		{scenario: scenario{name: "3 weekly $10", build: func(h *history) {
			h.subscribe("2026-01-05", []*stripe.Price{priceWeek})
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-05", month("il_1", "price_week", 1000, 1, "2026-01-05", "2026-01-12")))
			h.pay(stripetest.PaidInvoice("in_2", "2026-01-12", month("il_2", "price_week", 1000, 1, "2026-01-12", "2026-01-19")))
		}, checks: []mrrCheck{{"2026-01-04", 0}, {"2026-01-06", 4348}, {"2026-01-15", 4348}}},
			moves: []move{{"new_biz", "2026-01-05", 4348}}, status: model.StatusPastDue},

		{scenario: scenario{name: "5 20% forever coupon on $100", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM100})
			for i, m := range []string{"2026-01-01", "2026-02-01", "2026-03-01"} {
				end := stripetest.At(m).AddDate(0, 1, 0).Format(time.DateOnly)
				h.pay(stripetest.PaidInvoice(fmt.Sprintf("in_%d", i+1), m,
					stripetest.Discounted(month(fmt.Sprintf("il_%d", i+1), "price_m100", 10000, 1, m, end), 2000, "coupon_20_forever")))
			}
		}, checks: []mrrCheck{{"2026-01-15", 8000}, {"2026-02-15", 8000}, {"2026-03-15", 8000}},
			verify: lineAmounts("in_2", 8000, 2000, 0, "coupon_20_forever")},
			moves: []move{{"new_biz", "2026-01-01", 8000}}},

		{scenario: scenario{name: "6 $10-off once coupon on $50", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM})
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-01",
				stripetest.Discounted(month("il_1", "price_m", 5000, 1, "2026-01-01", "2026-02-01"), 1000, "coupon_10_once")))
			h.pay(stripetest.PaidInvoice("in_2", "2026-02-01", month("il_2", "price_m", 5000, 1, "2026-02-01", "2026-03-01")))
		}, checks: []mrrCheck{{"2026-01-31", 4000}, {"2026-02-15", 5000}}},
			moves: []move{{"new_biz", "2026-01-01", 4000}, {"expansion", "2026-02-01", 1000}}},

		{scenario: scenario{name: "6 50% repeating coupon for 3 months on $100", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM100})
			for i, m := range []string{"2026-01-01", "2026-02-01", "2026-03-01", "2026-04-01"} {
				end := stripetest.At(m).AddDate(0, 1, 0).Format(time.DateOnly)
				l := month(fmt.Sprintf("il_%d", i+1), "price_m100", 10000, 1, m, end)
				if i < 3 {
					l = stripetest.Discounted(l, 5000, "coupon_50_3months")
				}
				h.pay(stripetest.PaidInvoice(fmt.Sprintf("in_%d", i+1), m, l))
			}
		}, checks: []mrrCheck{{"2026-01-31", 5000}, {"2026-02-28", 5000}, {"2026-03-31", 5000}, {"2026-04-30", 10000}}},
			moves: []move{{"new_biz", "2026-01-01", 5000}, {"expansion", "2026-04-01", 5000}}},

		{scenario: scenario{name: "6 annual $1,200 with $120 once", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceYear})
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-01",
				stripetest.Discounted(month("il_1", "price_year", 120000, 1, "2026-01-01", "2027-01-01"), 12000, "coupon_120_once")))
			h.pay(stripetest.PaidInvoice("in_2", "2027-01-01", month("il_2", "price_year", 120000, 1, "2027-01-01", "2028-01-01")))
		}, checks: []mrrCheck{{"2026-01-31", 9000}, {"2026-12-31", 9000}, {"2027-01-10", 10000}}},
			moves: []move{{"new_biz", "2026-01-01", 9000}, {"expansion", "2027-01-01", 1000}}},

		{scenario: scenario{name: "7 $100 + 20% VAT, tax exclusive", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM100})
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-01",
				stripetest.Taxed(month("il_1", "price_m100", 10000, 1, "2026-01-01", "2026-02-01"), 2000, 10000, stripe.InvoiceLineItemTaxTaxBehaviorExclusive)))
		}, checks: []mrrCheck{{"2026-01-15", 10000}},
			verify: lineAmounts("in_1", 12000, 0, 2000, "")},
			moves: []move{{"new_biz", "2026-01-01", 10000}}},

		{scenario: scenario{name: "8 $120 including 20% VAT", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM120})
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-01",
				stripetest.Taxed(month("il_1", "price_m120", 12000, 1, "2026-01-01", "2026-02-01"), 2000, 10000, stripe.InvoiceLineItemTaxTaxBehaviorInclusive)))
		}, checks: []mrrCheck{{"2026-01-15", 10000}},
			verify: lineAmounts("in_1", 12000, 0, 2000, "")},
			moves: []move{{"new_biz", "2026-01-01", 10000}}},

		{scenario: scenario{name: "8 $120 including 20% VAT, 50% coupon", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM120})
			l := stripetest.Discounted(month("il_1", "price_m120", 12000, 1, "2026-01-01", "2026-02-01"), 6000, "coupon_50")
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-01", stripetest.Taxed(l, 1000, 5000, stripe.InvoiceLineItemTaxTaxBehaviorInclusive)))
		}, checks: []mrrCheck{{"2026-01-15", 5000}},
			verify: lineAmounts("in_1", 6000, 6000, 1000, "coupon_50")},
			moves: []move{{"new_biz", "2026-01-01", 5000}}},

		{scenario: scenario{name: "8 $120 with tax handled outside Stripe", build: func(h *history) {
			h.subscribe("2026-01-01", []*stripe.Price{priceM120})
			h.pay(stripetest.PaidInvoice("in_1", "2026-01-01", month("il_1", "price_m120", 12000, 1, "2026-01-01", "2026-02-01")))
		}, checks: []mrrCheck{{"2026-01-15", 12000}},
			verify: lineAmounts("in_1", 12000, 0, 0, "")},
			moves: []move{{"new_biz", "2026-01-01", 12000}}},

		{scenario: scenario{name: "10 seats 3 to 5, always_invoice", build: func(h *history) { seatChange(h, 3, 5) },
			checks: []mrrCheck{{"2026-04-15", 15000}, {"2026-04-16", 25000}, {"2026-05-15", 25000}},
			verify: seats(5, 25000)},
			moves: []move{{"new_biz", "2026-04-01", 15000}, {"expansion", "2026-04-16", 10000}}},

		{scenario: scenario{name: "10 seats 5 to 3, always_invoice", build: func(h *history) { seatChange(h, 5, 3) },
			checks: []mrrCheck{{"2026-04-15", 25000}, {"2026-04-16", 15000}, {"2026-05-15", 15000}},
			verify: seats(3, 15000)},
			moves: []move{{"new_biz", "2026-04-01", 25000}, {"contraction", "2026-04-16", -10000}}},

		{scenario: scenario{name: "11 downgrade at renewal (schedule phase)", build: func(h *history) { downgradeAtRenewal(h, "2026-05-01") },
			checks: []mrrCheck{{"2026-04-30", 15000}, {"2026-05-01", 5000}, {"2026-05-31", 5000}}},
			moves: []move{{"new_biz", "2026-04-01", 15000}, {"contraction", "2026-05-01", -10000}}},

		{scenario: scenario{name: "11 downgrade with proration_behavior none, billed at renewal", build: func(h *history) { downgradeAtRenewal(h, "2026-04-20") },
			checks: []mrrCheck{{"2026-04-30", 15000}, {"2026-05-01", 5000}, {"2026-05-31", 5000}}},
			moves: []move{{"new_biz", "2026-04-01", 15000}, {"contraction", "2026-05-01", -10000}}},

		{scenario: scenario{name: "14 failed renewal, retries exhausted, cancelled by Stripe", build: func(h *history) {
			s := h.subscribe("2026-01-01", []*stripe.Price{priceM})
			h.monthly("2026-01-01", 3, "price_m", 5000)
			failing := stripetest.OpenInvoice("in_4", "2026-04-01", month("il_4", "price_m", 5000, 1, "2026-04-01", "2026-05-01"))
			h.add(stripe.EventTypeInvoiceFinalized, "2026-04-01", failing, nil)
			pastDue := *s
			pastDue.Status = stripe.SubscriptionStatusPastDue
			h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-04-01", &pastDue, map[string]any{"status": "active"})
			for attempt, on := range []string{"2026-04-01", "2026-04-06", "2026-04-13", "2026-04-20"} {
				f := *failing
				f.AttemptCount = int64(attempt + 1)
				h.add(stripe.EventTypeInvoicePaymentFailed, on, &f, nil)
			}
			ended := pastDue
			ended.Status, ended.CanceledAt, ended.EndedAt = stripe.SubscriptionStatusCanceled, day("2026-04-22"), day("2026-04-22")
			ended.CancellationDetails = &stripe.SubscriptionCancellationDetails{Reason: stripe.SubscriptionCancellationDetailsReasonPaymentFailed}
			h.add(stripe.EventTypeCustomerSubscriptionDeleted, "2026-04-22", &ended, nil)
		}, checks: []mrrCheck{{"2026-04-15", 5000}, {"2026-04-21", 5000}, {"2026-04-22", 0}, {"2026-04-30", 0}},
			verify: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
				inv := invoice(t, env, conn, "in_4")
				if inv.Status != "" || len(inv.Transactions) != 4 {
					t.Errorf("invoice in_4: status %q, transactions %+v; want it open with four failed payments", inv.Status, inv.Transactions)
				}
			}},
			moves: []move{{"new_biz", "2026-01-01", 5000}, {"churn", "2026-04-22", -5000}}, status: model.StatusCancelled, reversed: true},

		{scenario: scenario{name: "16 trial ends without a payment method, paused", build: func(h *history) {
			s := trialWithoutPaymentMethod(h, stripe.SubscriptionTrialSettingsEndBehaviorMissingPaymentMethodPause)
			paused := *s
			paused.Status = stripe.SubscriptionStatusPaused
			h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-01-15", &paused, map[string]any{"status": "trialing"})
			h.add(stripe.EventTypeCustomerSubscriptionPaused, "2026-01-15", &paused, nil)
		}, checks: []mrrCheck{{"2026-01-10", 0}, {"2026-01-20", 0}, {"2026-02-20", 0}}, verify: stillALead},
			status: model.StatusNewLead},

		{scenario: scenario{name: "16 trial ends without a payment method, cancelled", build: func(h *history) {
			s := trialWithoutPaymentMethod(h, stripe.SubscriptionTrialSettingsEndBehaviorMissingPaymentMethodCancel)
			ended := *s
			ended.Status, ended.CanceledAt, ended.EndedAt = stripe.SubscriptionStatusCanceled, day("2026-01-15"), day("2026-01-15")
			ended.CancellationDetails = &stripe.SubscriptionCancellationDetails{Reason: stripe.SubscriptionCancellationDetailsReasonCancellationRequested}
			h.add(stripe.EventTypeCustomerSubscriptionDeleted, "2026-01-15", &ended, nil)
		}, checks: []mrrCheck{{"2026-01-10", 0}, {"2026-01-20", 0}, {"2026-02-20", 0}}, verify: stillALead},
			status: model.StatusNewLead},

		{scenario: scenario{name: "18 renewal marked uncollectible", build: func(h *history) { unpaidRenewal(h, stripe.InvoiceStatusUncollectible) },
			checks: []mrrCheck{{"2026-05-15", 5000}, {"2026-06-10", 5000}, {"2026-06-25", 5000}, {"2026-08-15", 5000}},
			verify: invoiceStatus("in_2026-06-01", model.InvoiceWrittenOff)},
			moves: []move{{"new_biz", "2026-04-01", 5000}}, status: model.StatusPastDue, reversed: true},

		{scenario: scenario{name: "18 renewal voided", build: func(h *history) { unpaidRenewal(h, stripe.InvoiceStatusVoid) },
			checks: []mrrCheck{{"2026-05-15", 5000}, {"2026-06-10", 5000}, {"2026-06-25", 5000}, {"2026-08-15", 5000}},
			verify: invoiceStatus("in_2026-06-01", model.InvoiceVoided)},
			moves: []move{{"new_biz", "2026-04-01", 5000}}, status: model.StatusPastDue},

		{scenario: scenario{name: "20 collection paused, renewals voided, resumed", build: pausedCollection,
			checks: []mrrCheck{{"2026-03-31", 5000}, {"2026-04-30", 5000}, {"2026-05-31", 5000}, {"2026-06-30", 5000}},
			verify: invoiceStatus("in_2026-04-01", model.InvoiceVoided)},
			moves: []move{{"new_biz", "2026-03-01", 5000}}, reversed: true},
	}
}

// pausedSeenMidway: while collection is paused, the customer keeps its MRR and is past
// due (its last counted period ended on April 1st): the events up to May 15th, applied
// and recomputed with the clock on that day.
func pausedSeenMidway(t *testing.T, env *testenv.Env) {
	may := stripetest.At("2026-05-15")
	deps := env.With(nil, func() time.Time { return may })
	conn := connect(t, env, "paused, seen on May 15th")
	var h history
	pausedCollection(&h)
	var upToMay []stripe.Event
	for _, ev := range h.events {
		if ev.Created <= may.Unix() {
			upToMay = append(upToMay, ev)
		}
	}
	if err := deliver(newSync(deps), conn, upToMay); err != nil {
		t.Fatal(err)
	}
	env.DrainJobs(t, workers.Jobs(deps.Workers()))
	if got := mrrOn(t, env, conn.AccountID, "2026-05-15"); got != 5000 {
		t.Errorf("MRR on May 15th = %d, want 5000", got)
	}
	if got := customer(t, env, conn, "cus_1").Status; got != model.StatusPastDue {
		t.Errorf("status %q, want %q", got, model.StatusPastDue)
	}
}

// pausedCollection: $50 a month from March 1st; on March 20th collection is paused
// with behavior void until June 1st, so Stripe voids April's and May's renewals; June's
// is paid.
func pausedCollection(h *history) {
	s := h.subscribe("2026-03-01", []*stripe.Price{priceM})
	h.monthly("2026-03-01", 1, "price_m", 5000)
	paused := *s
	paused.PauseCollection = &stripe.SubscriptionPauseCollection{Behavior: stripe.SubscriptionPauseCollectionBehaviorVoid, ResumesAt: day("2026-06-01")}
	h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-03-20", &paused, map[string]any{"pause_collection": nil})
	for _, m := range []string{"2026-04-01", "2026-05-01"} {
		end := stripetest.At(m).AddDate(0, 1, 0).Format(time.DateOnly)
		inv := stripetest.OpenInvoice("in_"+m, m, stripetest.SubLine("il_"+m, "sub_1", "si_1", "price_m", 5000, 1, m, end))
		h.add(stripe.EventTypeInvoiceFinalized, m, inv, nil)
		voided := *inv
		voided.Status, voided.AmountRemaining = stripe.InvoiceStatusVoid, 0
		voided.StatusTransitions = &stripe.InvoiceStatusTransitions{FinalizedAt: day(m), VoidedAt: day(m)}
		h.add(stripe.EventTypeInvoiceVoided, m, &voided, nil)
	}
	resumed := *s
	h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-06-01", &resumed,
		map[string]any{"pause_collection": map[string]any{"behavior": "void", "resumes_at": day("2026-06-01")}})
	h.monthly("2026-06-01", 1, "price_m", 5000)
}

// seatChange: $50 a seat from April 1st, from `from` seats to `to` on April 16th with
// proration_behavior always_invoice (the proration invoiced and settled at once; a
// net credit goes to the customer's balance), then May's renewal.
func seatChange(h *history, from, to int64) {
	s := h.subscribe("2026-04-01", []*stripe.Price{priceM})
	s.Items.Data[0].Quantity = from
	h.events = h.events[:len(h.events)-1] // the subscription again, with its seats
	h.add(stripe.EventTypeCustomerSubscriptionCreated, "2026-04-01", s, nil)
	line := func(id string, amount, qty int64, start, end string) *stripe.InvoiceLineItem {
		return stripetest.SubLine(id, "sub_1", "si_1", "price_m", amount, qty, start, end)
	}
	h.pay(stripetest.PaidInvoice("in_1", "2026-04-01", line("il_1", 5000*from, from, "2026-04-01", "2026-05-01")))
	changed := *s
	changed.Items = &stripe.SubscriptionItemList{Data: []*stripe.SubscriptionItem{{ID: "si_1", Subscription: "sub_1", Price: priceM, Quantity: to}}}
	h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-04-16", &changed, map[string]any{
		"items": map[string]any{"data": []any{map[string]any{"id": "si_1", "quantity": from}}}})
	unused := stripetest.ProrationLine(line("il_2a", -2500*from, from, "2026-04-16", "2026-05-01"))
	remaining := stripetest.ProrationLine(line("il_2b", 2500*to, to, "2026-04-16", "2026-05-01"))
	if to < from {
		// Stripe shows a proration as a line of its subscription item or of the invoice
		// item it generated: the downgrade takes the second shape.
		unused, remaining = invoiceItemProration(unused), invoiceItemProration(remaining)
	}
	proration := stripetest.PaidInvoice("in_2", "2026-04-16", unused, remaining)
	proration.BillingReason = stripe.InvoiceBillingReasonSubscriptionUpdate
	if proration.Total > 0 {
		h.pay(proration)
	} else {
		h.settleFromBalance(proration)
	}
	h.pay(stripetest.PaidInvoice("in_3", "2026-05-01", line("il_3", 5000*to, to, "2026-05-01", "2026-06-01")))
}

// invoiceItemProration is a subscription item's proration line shown as the line of
// the pending invoice item it generated: it names the subscription, not the item.
func invoiceItemProration(l *stripe.InvoiceLineItem) *stripe.InvoiceLineItem {
	d := l.Parent.SubscriptionItemDetails
	l.Parent = &stripe.InvoiceLineItemParent{Type: stripe.InvoiceLineItemParentTypeInvoiceItemDetails,
		InvoiceItemDetails: &stripe.InvoiceLineItemParentInvoiceItemDetails{InvoiceItem: "ii_" + l.ID,
			Proration: d.Proration, Subscription: d.Subscription}}
	return l
}

// settleFromBalance adds an invoice whose total is not above zero: Stripe finalizes it
// and marks it paid at once, with no payment; a credit goes to the customer's balance.
func (h *history) settleFromBalance(inv *stripe.Invoice) {
	on := time.Unix(inv.StatusTransitions.FinalizedAt, 0).UTC().Format(time.DateOnly)
	inv.Payments = nil
	inv.AmountDue, inv.AmountPaid, inv.AmountRemaining = 0, 0, 0
	inv.EndingBalance = min(inv.Total, 0)
	open := *inv
	open.Status = stripe.InvoiceStatusOpen
	h.add(stripe.EventTypeInvoiceFinalized, on, &open, nil)
	h.add(stripe.EventTypeInvoicePaid, on, inv, nil)
}

// downgradeAtRenewal: $150 a month from April 1st, moved to $50 on changedOn with no
// proration (a schedule's next phase on May 1st, or a change with
// proration_behavior none), so the first invoice at $50 is May's.
func downgradeAtRenewal(h *history, changedOn string) {
	s := h.subscribe("2026-04-01", []*stripe.Price{priceM2})
	h.pay(stripetest.PaidInvoice("in_1", "2026-04-01", stripetest.SubLine("il_1", "sub_1", "si_1", "price_m2", 15000, 1, "2026-04-01", "2026-05-01")))
	down := *s
	down.Items = &stripe.SubscriptionItemList{Data: []*stripe.SubscriptionItem{{ID: "si_1", Subscription: "sub_1", Price: priceM, Quantity: 1}}}
	h.add(stripe.EventTypeCustomerSubscriptionUpdated, changedOn, &down, map[string]any{
		"items": map[string]any{"data": []any{map[string]any{"id": "si_1", "price": map[string]any{"id": "price_m2"}}}}})
	h.pay(stripetest.PaidInvoice("in_2", "2026-05-01", stripetest.SubLine("il_2", "sub_1", "si_1", "price_m", 5000, 1, "2026-05-01", "2026-06-01")))
}

// trialWithoutPaymentMethod: a customer and a $50 subscription trialing from January
// 1st to 15th without a payment method (its trial's $0 invoice settled at once); what
// happens at the trial's end is the caller's.
func trialWithoutPaymentMethod(h *history, atTrialEnd stripe.SubscriptionTrialSettingsEndBehaviorMissingPaymentMethod) *stripe.Subscription {
	h.add(stripe.EventTypeCustomerCreated, "2026-01-01", &stripe.Customer{ID: "cus_1", Created: day("2026-01-01")}, nil)
	s := stripetest.Subscription("sub_1", "si_1")
	s.Created, s.StartDate = day("2026-01-01"), day("2026-01-01")
	s.Status, s.TrialStart, s.TrialEnd = stripe.SubscriptionStatusTrialing, day("2026-01-01"), day("2026-01-15")
	s.TrialSettings = &stripe.SubscriptionTrialSettings{EndBehavior: &stripe.SubscriptionTrialSettingsEndBehavior{MissingPaymentMethod: atTrialEnd}}
	s.Items.Data[0].Price, s.Items.Data[0].Quantity = priceM, 1
	h.add(stripe.EventTypeCustomerSubscriptionCreated, "2026-01-01", s, nil)
	h.add(stripe.EventTypeCustomerSubscriptionTrialWillEnd, "2026-01-12", s, nil)
	trial := stripetest.PaidInvoice("in_1", "2026-01-01", stripetest.SubLine("il_1", "sub_1", "si_1", "price_m", 0, 1, "2026-01-01", "2026-01-15"))
	h.settleFromBalance(trial)
	return s
}

// unpaidRenewal: a $50 monthly subscriber since April whose June renewal fails and is
// marked uncollectible, or voided, on June 20th.
func unpaidRenewal(h *history, end stripe.InvoiceStatus) {
	s := h.subscribe("2026-04-01", []*stripe.Price{priceM})
	h.monthly("2026-04-01", 2, "price_m", 5000)
	inv := stripetest.OpenInvoice("in_2026-06-01", "2026-06-01",
		stripetest.SubLine("il_2026-06-01", "sub_1", "si_1", "price_m", 5000, 1, "2026-06-01", "2026-07-01"))
	h.add(stripe.EventTypeInvoiceFinalized, "2026-06-01", inv, nil)
	failed := *inv
	failed.AttemptCount = 1
	h.add(stripe.EventTypeInvoicePaymentFailed, "2026-06-01", &failed, nil)
	pastDue := *s
	pastDue.Status = stripe.SubscriptionStatusPastDue
	h.add(stripe.EventTypeCustomerSubscriptionUpdated, "2026-06-01", &pastDue, map[string]any{"status": "active"})
	closed := failed
	closed.Status = end
	closed.StatusTransitions = &stripe.InvoiceStatusTransitions{FinalizedAt: day("2026-06-01")}
	kind := stripe.EventTypeInvoiceMarkedUncollectible
	if end == stripe.InvoiceStatusVoid {
		kind, closed.AmountRemaining = stripe.EventTypeInvoiceVoided, 0
		closed.StatusTransitions.VoidedAt = day("2026-06-20")
	} else {
		closed.StatusTransitions.MarkedUncollectibleAt = day("2026-06-20")
	}
	h.add(kind, "2026-06-20", &closed, nil)
}

// lineAmounts checks the first line of a stored invoice.
func lineAmounts(invoiceID string, amount, discount, tax int64, code string) func(*testing.T, *testenv.Env, model.StripeConnection) {
	return func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
		inv := invoice(t, env, conn, invoiceID)
		if len(inv.LineItems) != 1 {
			t.Fatalf("%s lines %+v", invoiceID, inv.LineItems)
		}
		li := inv.LineItems[0]
		if li.AmountInCents != amount || li.DiscountAmountInCents != discount || li.TaxAmountInCents != tax || li.DiscountCode != code {
			t.Errorf("%s line: amount %d, discount %d (%q), tax %d; want %d, %d (%q), %d", invoiceID,
				li.AmountInCents, li.DiscountAmountInCents, li.DiscountCode, li.TaxAmountInCents, amount, discount, code, tax)
		}
	}
}

// invoiceStatus checks a stored invoice's status.
func invoiceStatus(invoiceID, status string) func(*testing.T, *testenv.Env, model.StripeConnection) {
	return func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
		if inv := invoice(t, env, conn, invoiceID); inv.Status != status {
			t.Errorf("%s status %q, want %q", invoiceID, inv.Status, status)
		}
	}
}

// seats checks cus_1's one subscription in the Metrics API: its quantity and MRR now.
func seats(quantity, mrr int64) func(*testing.T, *testenv.Env, model.StripeConnection) {
	return func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
		c := customer(t, env, conn, "cus_1")
		status, body := apitest.Call(t, env.API, "ListCustomerSubscriptions", conn.AccountID, c.UUID, nil, nil)
		subs := apitest.Entries(t, body)
		if status != http.StatusOK || len(subs) != 1 {
			t.Fatalf("subscriptions: %d %v", status, body)
		}
		if q, m := subs[0]["quantity"], subs[0]["mrr"]; q != float64(quantity) || m != float64(mrr) {
			t.Errorf("subscription quantity %v, MRR %v; want %d, %d", q, m, quantity, mrr)
		}
	}
}

// stillALead: the trial never billed more than $0, so the customer is a lead since the
// trial's start.
func stillALead(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
	c := customer(t, env, conn, "cus_1")
	if c.LeadCreatedAt == nil || !c.LeadCreatedAt.Equal(stripetest.At("2026-01-01")) || c.CustomerSince != nil {
		t.Errorf("lead created %v, customer since %v; want a lead since January 1st", c.LeadCreatedAt, c.CustomerSince)
	}
}

// movesOf are a customer's MRR movements from the Metrics API, oldest first.
func movesOf(t *testing.T, env *testenv.Env, conn model.StripeConnection, stripeCustomer string) []move {
	t.Helper()
	c := customer(t, env, conn, stripeCustomer)
	status, body := apitest.Call(t, env.API, "ListCustomerActivities", conn.AccountID, c.UUID, apitest.Query("per_page", "200"), nil)
	if status != http.StatusOK {
		t.Fatalf("activities: %d %v", status, body)
	}
	var out []move
	for _, a := range apitest.Entries(t, body) {
		on, err := time.Parse(time.RFC3339, a["date"].(string))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, move{a["type"].(string), on.UTC().Format(time.DateOnly), int64(a["activity-mrr-movement"].(float64))})
	}
	return out
}

// TestMoreScenariosMRR applies each story's events, built with stripe-go's types, to an
// account of its own at the default settings, runs the recomputations they asked for,
// and reads the MRR, the customer's movements and its status from the Metrics API.
func TestMoreScenariosMRR(t *testing.T) {
	env := newEnv(t)
	recomputes := &coalescing{to: env.Deps.Jobs, asked: map[string]jobs.Message{}}
	s := newSync(env.Deps)
	s.Jobs = recomputes
	var stories []story
	var orders [][]stripe.Event
	for _, st := range moreScenarios() {
		var h history
		st.build(&h)
		stories, orders = append(stories, st), append(orders, h.events)
		if st.reversed {
			st.name += ", reversed"
			stories, orders = append(stories, st), append(orders, slices.Clone(h.events))
			slices.Reverse(orders[len(orders)-1])
		}
	}
	conns := make([]model.StripeConnection, len(stories))
	errs := make([]error, len(stories))
	var wg sync.WaitGroup
	for i, st := range stories {
		conns[i] = connect(t, env, st.name)
		wg.Go(func() { errs[i] = deliver(s, conns[i], orders[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	recomputes.flush(t)
	drain(t, env)
	t.Run("20 collection paused, seen on May 15th", func(t *testing.T) { pausedSeenMidway(t, env) })
	for i, st := range stories {
		t.Run(st.name, func(t *testing.T) {
			conn := conns[i]
			for _, c := range st.checks {
				if got := mrrOn(t, env, conn.AccountID, c.on); got != c.mrr {
					t.Errorf("MRR on %s = %d, want %d", c.on, got, c.mrr)
				}
			}
			if got := movesOf(t, env, conn, "cus_1"); !slices.Equal(got, st.moves) {
				t.Errorf("movements %v, want %v", got, st.moves)
			}
			if st.status != "" {
				if got := customer(t, env, conn, "cus_1").Status; got != st.status {
					t.Errorf("status %q, want %q", got, st.status)
				}
			}
			if st.verify != nil {
				st.verify(t, env, conn)
			}
		})
	}
}
