package engine

import (
	"math/big"
	"slices"
	"time"
)

// customerState is the running state of the customer while steps are replayed.
type customerState struct {
	mrr       *big.Rat // exact sum over live subscriptions
	liveCount int
	everPaid  bool
	zeroChurn bool // churn_when_zero_mrr
}

// paying: counted as a customer. With churn_when_zero_mrr a customer whose subscriptions all
// sit at $0 has churned; without it the customer stays Active (§4.3).
func (c *customerState) paying() bool {
	return c.liveCount > 0 && (!c.zeroChurn || c.mrr.Sign() > 0)
}

// subSnapshot is a subscription's state at one moment.
type subSnapshot struct {
	mrr      *big.Rat
	native   *big.Rat
	currency string
	mixed    bool
	live     bool
	plan     Plan
	quantity int64
	endDate  time.Time
}

func (s *subscription) snapshot() subSnapshot {
	end := s.lastPeriodEnd
	if !s.live && !s.cancelledAt.IsZero() {
		end = s.cancelledAt
	}
	return subSnapshot{mrr: new(big.Rat).Set(s.mrr), native: new(big.Rat).Set(s.native), currency: s.currency,
		mixed: s.mixed, live: s.live, plan: s.plan, quantity: s.quantity, endDate: end}
}

// repricedAt is the snapshot's MRR converted at another rate of its own currency: what the
// subscription would be worth had only the exchange rate changed. It is nil when that
// means nothing (not live, another currency, several currencies) or changes nothing.
func (s subSnapshot) repricedAt(p price) *big.Rat {
	if !s.live || s.mixed || s.currency != p.currency {
		return nil
	}
	v := new(big.Rat).Mul(s.native, p.rate)
	if v.Cmp(s.mrr) == 0 {
		return nil
	}
	return v
}

// contribution is what the subscription adds to the customer's MRR.
func (s subSnapshot) contribution() *big.Rat {
	if !s.live {
		return new(big.Rat)
	}
	return s.mrr
}

// apply changes one subscription. A subscription only starts once billed more than $0
// (§1.3); until then $0 items just set its plan. It reports whether the step replaced the
// subscription's MRR (a new period, or a start), i.e. priced all of it at the step's rate.
func (s *subscription) apply(st *step) (replaced bool) {
	switch st.kind {
	case stepCancel:
		if s.live {
			s.live = false
			s.mrr, s.native, s.mixed = new(big.Rat), new(big.Rat), false
			s.cancelledAt = st.at
			if st.autoChurn {
				s.autoChurn = true
			}
		}
		return false
	case stepSet, stepAdd:
		value := st.price.value()
		switch {
		case s.live && st.kind == stepSet:
			s.mrr = value
			s.setNative(st.price)
			replaced = true
		case s.live:
			s.mrr = new(big.Rat).Add(s.mrr, value)
			if s.mixed || st.price.currency != s.currency {
				s.mixed = true
			} else {
				s.native = new(big.Rat).Add(s.native, st.price.native)
			}
		case value.Sign() > 0:
			s.live = true
			s.mrr = value
			s.setNative(st.price)
			replaced = true
			if s.startDate.IsZero() {
				s.startDate = st.at
			}
		}
	}
	s.plan, s.quantity = st.plan, st.quantity
	if st.periodEnd.After(s.lastPeriodEnd) {
		s.lastPeriodEnd = st.periodEnd
	}
	return replaced
}

func (s *subscription) setNative(p price) {
	s.native, s.currency, s.mixed = new(big.Rat).Set(p.native), p.currency, false
}

// rawMove is one movement before classification names it.
type rawMove struct {
	at                        time.Time
	sub                       *subscription
	prevPlan, plan            Plan
	subBefore, subAfter       *big.Rat
	custBefore, custAfter     *big.Rat
	payingBefore, payingAfter bool
	typ                       string
	first                     bool
}

// rawFX is one exchange-rate impact: a subscription's MRR repriced at a new rate.
type rawFX struct {
	at                    time.Time
	sub                   *subscription
	plan                  Plan
	subBefore, subAfter   *big.Rat
	custBefore, custAfter *big.Rat
}

// subChange is one subscription's change within an instant.
type subChange struct {
	sub           *subscription
	before, after subSnapshot
	linkedFrom    *subChange
	linked        bool
	replacedBy    *price   // the last step of the instant that replaced the MRR
	repriced      *big.Rat // before's MRR at the rate of replacedBy (its own or its linked successor's)
}

// start is the value the movement starts from: the MRR before, repriced at the new rate.
func (c *subChange) start() *big.Rat {
	if c.repriced != nil {
		return c.repriced
	}
	return c.before.contribution()
}

// reprice splits the exchange rate out of a change (docs/metrics-engine.md): when a new
// period replaced the MRR of a subscription that was already live, in the same currency,
// the MRR it had is first repriced at the new period's rate; only the rest is a movement.
// A subscription linked into a set successor is repriced at the successor's rate.
func (c *subChange) reprice() {
	if c.replacedBy == nil || !c.after.live {
		return
	}
	c.repriced = c.before.repricedAt(*c.replacedBy)
	if f := c.linkedFrom; f != nil {
		f.repriced = f.before.repricedAt(*c.replacedBy)
	}
}

// simulation holds what replaying a customer's steps produced.
type simulation struct {
	moves       []rawMove
	fx          []rawFX
	timeline    []Point
	nowState    customerState
	nowSubs     map[*subscription]subSnapshot
	nextStepAt  time.Time
	autoChurned bool
}

// simulate replays every step in order (§1.5, ties by event_order, then cancellations first,
// then input order) and classifies each subscription's net change per instant by what it does
// to the customer (§4.3).
func simulate(subs []*subscription, now time.Time, zeroChurn bool) simulation {
	var steps []*step
	for _, s := range subs {
		steps = append(steps, s.steps...)
	}
	slices.SortStableFunc(steps, stepLess)
	cust := customerState{mrr: new(big.Rat), zeroChurn: zeroChurn}
	var sim simulation
	snapped := false
	snap := func() {
		sim.nowState = customerState{mrr: new(big.Rat).Set(cust.mrr), liveCount: cust.liveCount, everPaid: cust.everPaid, zeroChurn: zeroChurn}
		sim.nowSubs = map[*subscription]subSnapshot{}
		for _, s := range subs {
			sim.nowSubs[s] = s.snapshot()
			if s.autoChurn {
				sim.autoChurned = true
			}
		}
		snapped = true
	}
	lastCustomer := int64(0)
	for i := 0; i < len(steps); {
		at := steps[i].at
		if !snapped && at.After(now) {
			snap()
			sim.nextStepAt = at
		}
		j := i
		var changes []*subChange
		index := map[*subscription]*subChange{}
		for ; j < len(steps) && steps[j].at.Equal(at); j++ {
			st := steps[j]
			s := st.sub
			if index[s] == nil {
				index[s] = &subChange{sub: s, before: s.snapshot()}
				changes = append(changes, index[s])
			}
			if s.apply(st) {
				index[s].replacedBy = &st.price
			}
		}
		i = j
		for _, c := range changes {
			c.after = c.sub.snapshot()
			c.sub.recordPoint(at, c.after)
		}
		linkSetMembers(changes)
		// Exchange-rate impacts first, so each movement starts from MRR at the new rates.
		for _, c := range changes {
			c.reprice()
		}
		for _, c := range changes {
			if fx, ok := cust.reprice(at, c); ok {
				sim.fx = append(sim.fx, fx)
			}
		}
		for _, c := range changes {
			if c.linked {
				continue
			}
			m, ok := cust.move(at, c)
			if ok {
				sim.moves = append(sim.moves, m)
			}
		}
		if v := truncate(cust.mrr); len(sim.timeline) == 0 || v != lastCustomer {
			sim.timeline = append(sim.timeline, Point{At: at, MRR: v})
			lastCustomer = v
		}
	}
	if !snapped {
		snap()
	}
	return sim
}

func (s *subscription) recordPoint(at time.Time, snap subSnapshot) {
	v := truncate(snap.contribution())
	if n := len(s.timeline); n > 0 && s.timeline[n-1].MRR == v {
		return
	}
	if n := len(s.timeline); n == 0 && v == 0 {
		return
	}
	s.timeline = append(s.timeline, Point{At: at, MRR: v})
}

// linkSetMembers links a subscription that ended at this instant to one of the same set that
// started at it, so the swap reads as expansion or contraction (§1.2, linked
// subscriptions); when one is replaced by several, it links to the lowest id.
func linkSetMembers(changes []*subChange) {
	for _, from := range changes {
		if from.sub.setExternalID == "" || !from.before.live || from.after.live {
			continue
		}
		var best *subChange
		for _, to := range changes {
			if to == from || to.linkedFrom != nil || to.before.live || !to.after.live ||
				to.sub.setExternalID != from.sub.setExternalID || to.sub.dataSourceUUID != from.sub.dataSourceUUID {
				continue
			}
			if best == nil || to.sub.uuid < best.sub.uuid {
				best = to
			}
		}
		if best != nil {
			best.linkedFrom = from
			from.linked = true
			from.sub.linkedTo = best.sub.uuid
		}
	}
}

// reprice applies a change's exchange-rate impact to the customer.
func (cust *customerState) reprice(at time.Time, c *subChange) (rawFX, bool) {
	if c.repriced == nil {
		return rawFX{}, false
	}
	fx := rawFX{at: at, sub: c.sub, plan: c.before.plan, subBefore: c.before.contribution(), subAfter: c.repriced,
		custBefore: new(big.Rat).Set(cust.mrr)}
	cust.mrr.Add(cust.mrr, new(big.Rat).Sub(c.repriced, c.before.contribution()))
	fx.custAfter = new(big.Rat).Set(cust.mrr)
	return fx, true
}

// move applies one (possibly linked) change, net of its exchange-rate impact, to the
// customer and names the movement it makes.
func (cust *customerState) move(at time.Time, c *subChange) (rawMove, bool) {
	m := rawMove{at: at, sub: c.sub, prevPlan: c.before.plan, plan: c.after.plan,
		subBefore: c.start(), subAfter: c.after.contribution(),
		custBefore: new(big.Rat).Set(cust.mrr), payingBefore: cust.paying()}
	delta := new(big.Rat).Sub(c.after.contribution(), c.start())
	liveDelta := boolInt(c.after.live) - boolInt(c.before.live)
	if f := c.linkedFrom; f != nil {
		m.prevPlan, m.subBefore = f.before.plan, f.start()
		delta.Add(delta, new(big.Rat).Sub(f.after.contribution(), f.start()))
		liveDelta += boolInt(f.after.live) - boolInt(f.before.live)
	}
	cust.mrr.Add(cust.mrr, delta)
	cust.liveCount += liveDelta
	m.custAfter = new(big.Rat).Set(cust.mrr)
	m.payingAfter = cust.paying()
	switch {
	case !m.payingBefore && m.payingAfter:
		m.typ, m.first = NewBusiness, !cust.everPaid
		if cust.everPaid {
			m.typ = Reactivation
		}
		cust.everPaid = true
	case m.payingBefore && !m.payingAfter:
		m.typ, m.plan = Churn, m.prevPlan
	case m.payingBefore && delta.Sign() > 0:
		m.typ = Expansion
	case m.payingBefore && delta.Sign() < 0:
		m.typ = Contraction
	default:
		return m, false
	}
	return m, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
