package stripegen

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/stripe/stripe-go/v84"
)

// Delivery is one event of a history, unsigned (Sign it when sending: Stripe's
// signature must be within minutes of its receipt, the event may be months old).
type Delivery struct {
	ID      string
	Type    stripe.EventType
	Created time.Time
	// Customer is the Stripe customer the event concerns ("" for the catalog's).
	Customer string
	Payload  []byte
}

// Options shape a history.
type Options struct {
	Customers int
	// Seed makes the history: the same seed, the same events byte for byte.
	Seed uint64
	// End is when the history stops (its last renewals are before it); it spans the
	// Months before it (12 when 0).
	End    time.Time
	Months int
}

// The catalog: two products, each with a monthly and an annual price (cents, USD).
var (
	products = []*stripe.Product{{ID: "prod_basic", Object: "product", Name: "Basic", Active: true},
		{ID: "prod_pro", Object: "product", Name: "Pro", Active: true}}
	prices = []*stripe.Price{
		price("price_basic_monthly", "prod_basic", "Basic monthly", 2900, stripe.PriceRecurringIntervalMonth),
		price("price_pro_monthly", "prod_pro", "Pro monthly", 9900, stripe.PriceRecurringIntervalMonth),
		price("price_basic_annual", "prod_basic", "Basic annual", 29000, stripe.PriceRecurringIntervalYear),
		price("price_pro_annual", "prod_pro", "Pro annual", 99000, stripe.PriceRecurringIntervalYear),
	}
)

func price(id, product, nickname string, cents int64, interval stripe.PriceRecurringInterval) *stripe.Price {
	return &stripe.Price{ID: id, Object: "price", Active: true, Currency: "usd", Nickname: nickname, UnitAmount: cents,
		Product: &stripe.Product{ID: product}, Type: stripe.PriceTypeRecurring,
		Recurring: &stripe.PriceRecurring{Interval: interval, IntervalCount: 1, UsageType: stripe.PriceRecurringUsageTypeLicensed}}
}

// History is a plausible Stripe account's events for o.Customers customers, in the
// order Stripe would send them (by creation time; one customer's in the order they
// happened): the catalog first, then each customer's creation and subscription (a
// third with a 14-day trial), its invoices and payments period by period, and for some
// an upgrade billed with proration lines, a cancellation at period end, failed
// payments (retried, or ending in a cancellation) or a refund.
func History(o Options) ([]Delivery, error) {
	months := o.Months
	if months <= 0 {
		months = 12
	}
	end := o.End.UTC().Truncate(time.Second)
	h := &history{start: end.AddDate(0, -months, 0), end: end, prefix: fmt.Sprintf("%x", o.Seed)}
	for _, p := range products {
		h.add(h.start, stripe.EventTypeProductCreated, "", p, nil)
	}
	for _, p := range prices {
		h.add(h.start, stripe.EventTypePriceCreated, "", p, nil)
	}
	for i := range o.Customers {
		h.customer(i, rand.New(rand.NewPCG(o.Seed, uint64(i))))
	}
	slices.SortStableFunc(h.pending, func(a, b pending) int { return a.Created.Compare(b.Created) })
	out := make([]Delivery, len(h.pending))
	for i, p := range h.pending {
		// Ids in delivery order, assigned after sorting so they never depend on how
		// the customers interleave.
		out[i] = p.Delivery
		out[i].ID = fmt.Sprintf("evt_%s_%08d", h.prefix, i)
		payload, err := Event(out[i].ID, p.Type, p.Created, p.object, p.previous)
		if err != nil {
			return nil, err
		}
		out[i].Payload = payload
	}
	return out, nil
}

type history struct {
	start, end time.Time
	prefix     string
	pending    []pending
}

// pending is an event before its id and rendering.
type pending struct {
	Delivery
	object   any
	previous map[string]any
}

func (h *history) add(at time.Time, typ stripe.EventType, customer string, obj any, prev map[string]any) {
	if at.After(h.end) {
		return
	}
	h.pending = append(h.pending, pending{Delivery{Type: typ, Created: at, Customer: customer}, obj, prev})
}

// customer writes the events of the i-th customer.
func (h *history) customer(i int, r *rand.Rand) {
	id := fmt.Sprintf("%sc%06d", h.prefix, i)
	cusID := "cus_" + id
	span := h.end.Sub(h.start)
	created := h.start.Add(time.Duration(r.Int64N(int64(span) * 11 / 12))).Truncate(time.Second)
	cus := &stripe.Customer{ID: cusID, Object: "customer", Created: created.Unix(), Email: fmt.Sprintf("customer%s@example.com", id),
		Name: fmt.Sprintf("%s %s", companies[r.IntN(len(companies))], id), Currency: "usd",
		Address: &stripe.Address{Country: countries[r.IntN(len(countries))]}}
	h.add(created, stripe.EventTypeCustomerCreated, cusID, cus, nil)

	p := prices[r.IntN(len(prices))]
	monthly := p.Recurring.Interval == stripe.PriceRecurringIntervalMonth
	trial := monthly && r.IntN(3) == 0
	s := &sub{h: h, r: r, cus: cusID, id: "sub_" + id, item: "si_" + id, price: p, created: created, seq: 0}
	s.start(trial)
	upgradeAt := -1
	if p.ID == "price_basic_monthly" && r.IntN(4) == 0 {
		upgradeAt = 1 + r.IntN(4)
	}
	cancelAt := -1
	if r.IntN(5) == 0 {
		cancelAt = r.IntN(8)
	}
	refunded := r.IntN(20) == 0
	for period := 0; ; period++ {
		if s.from.After(h.end) {
			return
		}
		inv, ok := s.invoice(period)
		if !ok {
			return // the customer stopped paying: Stripe cancelled the subscription
		}
		if refunded && inv != nil {
			s.refund(inv)
			refunded = false
		}
		if period == upgradeAt {
			s.upgrade(prices[1])
		}
		if period == cancelAt {
			s.cancelAtPeriodEnd()
			return
		}
		s.from, s.to = s.to, s.next(s.to)
	}
}

var (
	companies = []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Tyrell", "Cyberdyne"}
	countries = []string{"US", "US", "US", "GB", "DE", "FR", "CA", "AU", "NL", "ES"}
)

// sub is one customer's subscription as the history moves through its periods.
type sub struct {
	h             *history
	r             *rand.Rand
	cus, id, item string
	price         *stripe.Price
	created       time.Time
	trialEnd      time.Time
	from, to      time.Time // the current period
	status        stripe.SubscriptionStatus
	seq           int
	// payAfter is how long after an invoice is issued Stripe collects it (0: an hour).
	payAfter time.Duration
}

func (s *sub) next(t time.Time) time.Time {
	if s.price.Recurring.Interval == stripe.PriceRecurringIntervalYear {
		return t.AddDate(1, 0, 0)
	}
	return t.AddDate(0, 1, 0)
}

func (s *sub) object() *stripe.Subscription {
	o := &stripe.Subscription{ID: s.id, Object: "subscription", Customer: &stripe.Customer{ID: s.cus}, Status: s.status,
		Created: s.created.Unix(), StartDate: s.created.Unix(), Currency: "usd",
		CollectionMethod: stripe.SubscriptionCollectionMethodChargeAutomatically,
		Items: &stripe.SubscriptionItemList{Data: []*stripe.SubscriptionItem{{ID: s.item, Object: "subscription_item",
			Price: s.price, Quantity: 1, Subscription: s.id, CurrentPeriodStart: s.from.Unix(), CurrentPeriodEnd: s.to.Unix()}}}}
	if !s.trialEnd.IsZero() {
		o.TrialStart, o.TrialEnd = s.created.Unix(), s.trialEnd.Unix()
	}
	return o
}

// start opens the subscription: trialing for 14 days (a $0 invoice, paid) or active.
func (s *sub) start(trial bool) {
	s.from, s.status = s.created, stripe.SubscriptionStatusActive
	if trial {
		s.trialEnd = s.created.AddDate(0, 0, 14)
		s.to, s.status = s.trialEnd, stripe.SubscriptionStatusTrialing
		s.h.add(s.created, stripe.EventTypeCustomerSubscriptionCreated, s.cus, s.object(), nil)
		line := s.line("trial", 0, s.created, s.trialEnd, false)
		s.finalizedAndPaid(s.created, stripe.InvoiceBillingReasonSubscriptionCreate, []*stripe.InvoiceLineItem{line}, paidAtOnce)
		s.from, s.status = s.trialEnd, stripe.SubscriptionStatusActive
		s.to = s.next(s.from)
		s.h.add(s.trialEnd, stripe.EventTypeCustomerSubscriptionUpdated, s.cus, s.object(), map[string]any{"status": "trialing"})
		return
	}
	s.to = s.next(s.from)
	s.h.add(s.created, stripe.EventTypeCustomerSubscriptionCreated, s.cus, s.object(), nil)
}

// invoice bills the current period (the first one after a trial, or a renewal); one
// renewal in twenty fails once and is paid on Stripe's retry three days later, and one
// in eighty fails for good: Stripe marks it uncollectible and cancels the
// subscription. ok is false then.
func (s *sub) invoice(period int) (_ *stripe.Invoice, ok bool) {
	reason := stripe.InvoiceBillingReasonSubscriptionCycle
	if period == 0 && s.trialEnd.IsZero() {
		reason = stripe.InvoiceBillingReasonSubscriptionCreate
	}
	line := s.line(fmt.Sprint(period), s.price.UnitAmount, s.from, s.to, false)
	outcome := paidAtOnce
	switch n := s.r.IntN(80); {
	case period == 0:
	case n == 0:
		outcome = lost
	case n < 5:
		outcome = paidOnRetry
	}
	inv := s.finalizedAndPaid(s.from, reason, []*stripe.InvoiceLineItem{line}, outcome)
	if outcome != lost {
		return inv, true
	}
	at := s.from.Add(time.Hour)
	for attempt := int64(2); attempt <= 3; attempt++ {
		at = at.AddDate(0, 0, 3)
		inv.AttemptCount = attempt
		s.h.add(at, stripe.EventTypeInvoicePaymentFailed, s.cus, copyInvoice(inv), nil)
	}
	end := at.AddDate(0, 0, 1)
	inv.Status = stripe.InvoiceStatusUncollectible
	inv.StatusTransitions.MarkedUncollectibleAt = end.Unix()
	s.h.add(end, stripe.EventTypeInvoiceMarkedUncollectible, s.cus, copyInvoice(inv), nil)
	o := s.object()
	o.Status, o.EndedAt, o.CanceledAt = stripe.SubscriptionStatusCanceled, end.Unix(), end.Unix()
	o.CancellationDetails = &stripe.SubscriptionCancellationDetails{Reason: stripe.SubscriptionCancellationDetailsReasonPaymentFailed}
	s.h.add(end, stripe.EventTypeCustomerSubscriptionDeleted, s.cus, o, nil)
	return inv, false
}

// upgrade moves the subscription's item to the Pro monthly price in the middle of the
// period: Stripe bills the change at once with two proration lines, a credit for the
// unused time on the old price and a charge for the rest of the period on the new one.
func (s *sub) upgrade(to *stripe.Price) {
	at := s.from.Add(s.to.Sub(s.from) / 2).Truncate(time.Second)
	if at.After(s.h.end) {
		return
	}
	old := s.object()
	s.price = to
	s.h.add(at, stripe.EventTypeCustomerSubscriptionUpdated, s.cus, s.object(), map[string]any{"items": old.Items})
	share := float64(s.to.Sub(at)) / float64(s.to.Sub(s.from))
	credit := s.line("credit", -int64(float64(old.Items.Data[0].Price.UnitAmount)*share), at, s.to, true)
	credit.Pricing.PriceDetails.Price = old.Items.Data[0].Price.ID
	debit := s.line("debit", int64(float64(to.UnitAmount)*share), at, s.to, true)
	credit.Description = old.Items.Data[0].Price.Nickname
	s.finalizedAndPaid(at, stripe.InvoiceBillingReasonSubscriptionUpdate, []*stripe.InvoiceLineItem{credit, debit}, paidAtOnce)
}

// cancelAtPeriodEnd schedules the cancellation ten days into the period (or at once
// for a short one); the subscription ends at the period's end.
func (s *sub) cancelAtPeriodEnd() {
	at := s.from.AddDate(0, 0, 10)
	if !at.Before(s.to) {
		at = s.from.Add(time.Hour)
	}
	o := s.object()
	o.CancelAtPeriodEnd, o.CanceledAt = true, at.Unix()
	o.CancellationDetails = &stripe.SubscriptionCancellationDetails{Reason: stripe.SubscriptionCancellationDetailsReasonCancellationRequested}
	s.h.add(at, stripe.EventTypeCustomerSubscriptionUpdated, s.cus, o, map[string]any{"cancel_at_period_end": false})
	ended := s.object()
	ended.Status, ended.CancelAtPeriodEnd, ended.CanceledAt, ended.EndedAt = stripe.SubscriptionStatusCanceled, true, at.Unix(), s.to.Unix()
	ended.CancellationDetails = o.CancellationDetails
	s.h.add(s.to, stripe.EventTypeCustomerSubscriptionDeleted, s.cus, ended, nil)
}

// refund refunds a paid invoice in full two days after its payment.
func (s *sub) refund(inv *stripe.Invoice) {
	if inv.AmountPaid == 0 || len(inv.Payments.Data) == 0 {
		return
	}
	at := time.Unix(inv.StatusTransitions.PaidAt, 0).UTC().AddDate(0, 0, 2)
	pay := inv.Payments.Data[0].Payment
	s.h.add(at, stripe.EventTypeRefundCreated, s.cus, &stripe.Refund{ID: "re_" + inv.ID[3:], Object: "refund",
		Amount: inv.AmountPaid, Currency: "usd", Created: at.Unix(), Status: stripe.RefundStatusSucceeded,
		Reason: stripe.RefundReasonRequestedByCustomer, PaymentIntent: pay.PaymentIntent}, nil)
}

// line is a subscription line of the subscription's item.
func (s *sub) line(suffix string, amount int64, from, to time.Time, proration bool) *stripe.InvoiceLineItem {
	return &stripe.InvoiceLineItem{ID: "il_" + s.id[4:] + "_" + suffix, Object: "line_item", Amount: amount, Subtotal: amount,
		Currency: "usd", Quantity: 1, Description: s.price.Nickname, Period: &stripe.Period{Start: from.Unix(), End: to.Unix()},
		Pricing: &stripe.InvoiceLineItemPricing{Type: "price_details", UnitAmountDecimal: float64(s.price.UnitAmount),
			PriceDetails: &stripe.InvoiceLineItemPricingPriceDetails{Price: s.price.ID, Product: s.price.Product.ID}},
		Parent: &stripe.InvoiceLineItemParent{Type: stripe.InvoiceLineItemParentTypeSubscriptionItemDetails,
			SubscriptionItemDetails: &stripe.InvoiceLineItemParentSubscriptionItemDetails{Subscription: s.id,
				SubscriptionItem: s.item, Proration: proration}}}
}

// How an invoice's collection goes.
type collection int

const (
	paidAtOnce  collection = iota
	paidOnRetry            // the first attempt fails, Stripe's retry three days later succeeds
	lost                   // the first attempt fails; the caller fails the retries and gives up
)

// finalizedAndPaid issues an invoice of lines at at (invoice.finalized) and collects it
// an hour later (invoice.paid), or fails the first attempt (invoice.payment_failed).
func (s *sub) finalizedAndPaid(at time.Time, reason stripe.InvoiceBillingReason, lines []*stripe.InvoiceLineItem, outcome collection) *stripe.Invoice {
	s.seq++
	var total int64
	for _, l := range lines {
		total += l.Amount
	}
	id := fmt.Sprintf("in_%s_%03d", s.id[4:], s.seq)
	inv := &stripe.Invoice{ID: id, Object: "invoice", Customer: &stripe.Customer{ID: s.cus}, Currency: "usd",
		Status: stripe.InvoiceStatusOpen, BillingReason: reason, CollectionMethod: stripe.InvoiceCollectionMethodChargeAutomatically,
		Created: at.Unix(), EffectiveAt: at.Unix(), PeriodStart: lines[0].Period.Start, PeriodEnd: lines[0].Period.End,
		AmountDue: max(total, 0), Subtotal: total, Total: total, TotalExcludingTax: total, AttemptCount: 0,
		StatusTransitions: &stripe.InvoiceStatusTransitions{FinalizedAt: at.Unix()},
		Parent: &stripe.InvoiceParent{Type: "subscription_details",
			SubscriptionDetails: &stripe.InvoiceParentSubscriptionDetails{Subscription: &stripe.Subscription{ID: s.id}}},
		Lines:    &stripe.InvoiceLineItemList{Data: lines},
		Payments: &stripe.InvoicePaymentList{}}
	s.h.add(at, stripe.EventTypeInvoiceFinalized, s.cus, copyInvoice(inv), nil)
	paid := at.Add(cmp.Or(s.payAfter, time.Hour))
	if outcome != paidAtOnce {
		inv.AttemptCount = 1
		s.h.add(paid, stripe.EventTypeInvoicePaymentFailed, s.cus, copyInvoice(inv), nil)
		paid = paid.AddDate(0, 0, 3)
		if outcome == lost {
			return inv
		}
	}
	inv.AttemptCount++
	inv.Status, inv.AmountPaid, inv.AmountRemaining = stripe.InvoiceStatusPaid, inv.AmountDue, 0
	inv.StatusTransitions.PaidAt = paid.Unix()
	inv.Payments = &stripe.InvoicePaymentList{Data: []*stripe.InvoicePayment{{ID: "inpay_" + id[3:], Object: "invoice_payment",
		Invoice: &stripe.Invoice{ID: id}, AmountPaid: inv.AmountPaid, AmountRequested: inv.AmountDue, Currency: "usd",
		Status: "paid", IsDefault: true, Created: paid.Unix(),
		Payment:           &stripe.InvoicePaymentPayment{Type: "payment_intent", PaymentIntent: &stripe.PaymentIntent{ID: "pi_" + id[3:]}},
		StatusTransitions: &stripe.InvoicePaymentStatusTransitions{PaidAt: paid.Unix()}}}}
	s.h.add(paid, stripe.EventTypeInvoicePaid, s.cus, copyInvoice(inv), nil)
	return inv
}

// copyInvoice is the invoice as it is now: later changes do not reach an event already
// written.
func copyInvoice(inv *stripe.Invoice) *stripe.Invoice {
	c := *inv
	st := *inv.StatusTransitions
	c.StatusTransitions = &st
	return &c
}

// Signup is one new customer's first events at at: its creation, a subscription on
// price (active at once, no trial), its first invoice finalized and paid a second
// later. Event ids start with evt_<id>_. The freshness measure sends them.
func Signup(id string, at time.Time, p *stripe.Price) []Delivery {
	at = at.UTC().Truncate(time.Second)
	h := &history{start: at, end: at.Add(time.Hour), prefix: id}
	cusID := "cus_" + id
	h.add(at, stripe.EventTypeCustomerCreated, cusID, &stripe.Customer{ID: cusID, Object: "customer", Created: at.Unix(),
		Email: "signup" + id + "@example.com", Name: "Signup " + id, Currency: "usd"}, nil)
	s := &sub{h: h, cus: cusID, id: "sub_" + id, item: "si_" + id, price: p, created: at}
	s.start(false)
	s.payAfter = time.Second // the measure waits for nothing but the service
	s.finalizedAndPaid(at, stripe.InvoiceBillingReasonSubscriptionCreate,
		[]*stripe.InvoiceLineItem{s.line("0", p.UnitAmount, s.from, s.to, false)}, paidAtOnce)
	out := make([]Delivery, len(h.pending))
	for i, p := range h.pending {
		out[i] = p.Delivery
		out[i].ID = fmt.Sprintf("evt_%s_%d", id, i)
		out[i].Payload, _ = Event(out[i].ID, p.Type, p.Created, p.object, p.previous)
	}
	return out
}

// Prices are the generated catalog's prices (monthly and annual, Basic and Pro).
func Prices() []*stripe.Price { return slices.Clone(prices) }
