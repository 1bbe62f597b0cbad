package engine

import (
	"math/big"
	"slices"
	"time"
)

// Compute derives one customer's subscriptions, MRR timeline, movements and status.
func Compute(in Input) Result {
	in = in.enabled()
	plans := make(map[string]Plan, len(in.Plans))
	for _, p := range in.Plans {
		plans[p.UUID] = p
	}
	items, invalid := screenInvoices(in, plans)
	items = applyInvoiceHandling(in, items)
	byKey, subs := groupSubscriptions(in, items)
	collectCancellations(in, byKey)
	applyEvents(in, byKey, plans)
	subs, forceSet := applyConnections(in.Connections, subs)

	var wake []time.Time
	pastDue := map[*subscription][]span{}
	for _, s := range subs {
		s.steps = append(s.steps, s.valueSteps(forceSet)...)
		s.steps = append(s.steps, s.cancellationSteps(in.settingsFor(s.dataSourceUUID))...)
		s.steps = append(s.steps, s.committed...)
		pastDue[s] = s.pastDueSpans(in)
		auto, later := s.autoChurnSteps(in, pastDue[s])
		s.steps = append(s.steps, auto...)
		wake = append(wake, later...)
	}
	sim := simulate(subs, in.Now, in.Settings.ChurnWhenZeroMRR)
	reclassify(sim.moves, in.Settings.ProximateMovementReclassification)

	res := Result{InvalidInvoices: invalid, MRRTimeline: sim.timeline, AutoChurned: sim.autoChurned}
	for _, m := range sim.moves {
		res.Movements = append(res.Movements, m.output(in.Now))
		if m.first && !m.at.After(in.Now) && res.CustomerSince.IsZero() {
			res.CustomerSince = m.at
		}
	}
	for _, f := range sim.fx {
		res.ExchangeRateImpacts = append(res.ExchangeRateImpacts, f.output(in.Now))
	}
	res.MRR = truncate(sim.nowState.mrr)
	res.ARR = 12 * res.MRR
	anyPastDue := false
	for _, s := range subs {
		if !s.hasRealItems() {
			continue
		}
		out := s.output(sim.nowSubs[s], in, pastDue[s])
		anyPastDue = anyPastDue || (out.PastDue && out.Status == SubscriptionActive)
		res.Subscriptions = append(res.Subscriptions, out)
		if sim.nowSubs[s].live {
			for _, sp := range pastDue[s] {
				wake = append(wake, sp.from, sp.to)
			}
		}
	}
	switch {
	case !sim.nowState.everPaid:
		res.Status = StatusLead
	case !sim.nowState.paying():
		res.Status = StatusCancelled
	case anyPastDue:
		res.Status = StatusPastDue
	default:
		res.Status = StatusActive
	}
	res.NextChangeAt = earliestAfter(in.Now, append(wake, sim.nextStepAt))
	res.BillingCurrencies = billingCurrencies(in)
	return res
}

// billingCurrencies are the distinct currencies of the enabled invoices and
// subscription events, sorted.
func billingCurrencies(in Input) []string {
	var out []string
	add := func(c string) {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, inv := range in.Invoices {
		add(inv.Currency)
	}
	for _, ev := range in.Events {
		add(ev.Currency)
	}
	slices.Sort(out)
	return out
}

func (m rawMove) output(now time.Time) Movement {
	return Movement{
		At:                        m.at,
		Type:                      m.typ,
		Amount:                    truncate(new(big.Rat).Sub(m.custAfter, m.custBefore)),
		CustomerMRR:               truncate(m.custAfter),
		CustomerMRRBefore:         truncate(m.custBefore),
		SubscriptionUUID:          m.sub.uuid,
		SubscriptionExternalID:    m.sub.externalID,
		SubscriptionSetExternalID: m.sub.setExternalID,
		DataSourceUUID:            m.sub.dataSourceUUID,
		PlanUUID:                  m.plan.UUID,
		PreviousPlanUUID:          m.prevPlan.UUID,
		SubscriptionMRRBefore:     truncate(m.subBefore),
		SubscriptionMRRAfter:      truncate(m.subAfter),
		Description:               describe(m),
		PayingBefore:              m.payingBefore,
		PayingAfter:               m.payingAfter,
		FirstPayment:              m.first,
		Scheduled:                 m.at.After(now),
	}
}

func (f rawFX) output(now time.Time) ExchangeRateImpact {
	before, after := truncate(f.custBefore), truncate(f.custAfter)
	return ExchangeRateImpact{
		At:                    f.at,
		Amount:                after - before,
		CustomerMRRBefore:     before,
		CustomerMRR:           after,
		SubscriptionUUID:      f.sub.uuid,
		PlanUUID:              f.plan.UUID,
		SubscriptionMRRBefore: truncate(f.subBefore),
		SubscriptionMRRAfter:  truncate(f.subAfter),
		Scheduled:             f.at.After(now),
	}
}

func (s *subscription) output(now subSnapshot, in Input, pastDue []span) Subscription {
	active := now.live && (!in.Settings.ChurnWhenZeroMRR || now.mrr.Sign() > 0)
	out := Subscription{
		UUID:              s.uuid,
		ExternalID:        s.externalID,
		SetExternalID:     s.setExternalID,
		DataSourceUUID:    s.dataSourceUUID,
		PlanUUID:          now.plan.UUID,
		Quantity:          now.quantity,
		MRR:               truncate(now.contribution()),
		Status:            SubscriptionInactive,
		BillingCycle:      now.plan.IntervalUnit,
		BillingCycleCount: now.plan.IntervalCount,
		StartDate:         s.startDate,
		EndDate:           now.endDate,
		CancellationDates: s.cancellations,
		ConnectedUUIDs:    s.connected,
		LinkedToUUID:      s.linkedTo,
	}
	if out.PlanUUID == "" { // never started: describe it by its latest item
		last := s.items[len(s.items)-1]
		out.PlanUUID, out.Quantity = last.plan.UUID, last.Quantity
		out.BillingCycle, out.BillingCycleCount = last.plan.IntervalUnit, last.plan.IntervalCount
		out.EndDate = last.ServicePeriodEnd
	}
	if out.StartDate.IsZero() || out.StartDate.After(in.Now) {
		out.StartDate = s.items[0].ServicePeriodStart
	}
	if active {
		out.Status = SubscriptionActive
		out.PastDue = slices.ContainsFunc(pastDue, func(sp span) bool { return sp.contains(in.Now) })
	}
	out.ARR = 12 * out.MRR
	out.MRRTimeline = s.timeline
	return out
}

func earliestAfter(now time.Time, ts []time.Time) time.Time {
	var best time.Time
	for _, t := range ts {
		if t.After(now) && t.Before(forever) && (best.IsZero() || t.Before(best)) {
			best = t
		}
	}
	return best
}
