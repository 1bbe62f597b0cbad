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
	return subSnapshot{mrr: new(big.Rat).Set(s.mrr), live: s.live, plan: s.plan, quantity: s.quantity, endDate: end}
}

// contribution is what the subscription adds to the customer's MRR.
func (s subSnapshot) contribution() *big.Rat {
	if !s.live {
		return new(big.Rat)
	}
	return s.mrr
}

// apply changes one subscription. A subscription only starts once billed more than $0
// (§1.3); until then $0 items just set its plan.
func (s *subscription) apply(st *step) {
	switch st.kind {
	case stepCancel:
		if s.live {
			s.live = false
			s.mrr = new(big.Rat)
			s.cancelledAt = st.at
			if st.autoChurn {
				s.autoChurn = true
			}
		}
		return
	case stepSet, stepAdd:
		switch {
		case s.live && st.kind == stepSet:
			s.mrr = new(big.Rat).Set(st.value)
		case s.live:
			s.mrr = new(big.Rat).Add(s.mrr, st.value)
		case st.value.Sign() > 0:
			s.live = true
			s.mrr = new(big.Rat).Set(st.value)
			if s.startDate.IsZero() {
				s.startDate = st.at
			}
		}
	}
	s.plan, s.quantity = st.plan, st.quantity
	if st.periodEnd.After(s.lastPeriodEnd) {
		s.lastPeriodEnd = st.periodEnd
	}
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

// subChange is one subscription's change within an instant.
type subChange struct {
	sub           *subscription
	before, after subSnapshot
	linkedFrom    *subChange
	linked        bool
}

// simulation holds what replaying a customer's steps produced.
type simulation struct {
	moves       []rawMove
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
			s := steps[j].sub
			if index[s] == nil {
				index[s] = &subChange{sub: s, before: s.snapshot()}
				changes = append(changes, index[s])
			}
			s.apply(steps[j])
		}
		i = j
		for _, c := range changes {
			c.after = c.sub.snapshot()
			c.sub.recordPoint(at, c.after)
		}
		linkSetMembers(changes)
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

// move applies one (possibly linked) change to the customer and names the movement it makes.
func (cust *customerState) move(at time.Time, c *subChange) (rawMove, bool) {
	m := rawMove{at: at, sub: c.sub, prevPlan: c.before.plan, plan: c.after.plan,
		subBefore: c.before.contribution(), subAfter: c.after.contribution(),
		custBefore: new(big.Rat).Set(cust.mrr), payingBefore: cust.paying()}
	delta := new(big.Rat).Sub(c.after.contribution(), c.before.contribution())
	liveDelta := boolInt(c.after.live) - boolInt(c.before.live)
	if f := c.linkedFrom; f != nil {
		m.prevPlan, m.subBefore = f.before.plan, f.before.contribution()
		delta.Add(delta, new(big.Rat).Sub(f.after.contribution(), f.before.contribution()))
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
