package series

import (
	"slices"

	"github.com/subsight/subsight/shared/metrics/engine"
)

// Customer is what the series need from one customer: its real (not scheduled) movements in
// date order, and the attributes filters use.
type Customer struct {
	UUID      string
	Country   string
	Movements []engine.Movement
}

// Filter restricts a series to customers of some countries and to subscriptions on some plans
// (plan uuids; the HTTP layer resolves names and external ids). Empty means no restriction.
type Filter struct {
	Countries []string
	Plans     []string
}

// DayTotals are one day's additive quantities. The five movement sums are changes of the
// customers' MRR (activity-mrr after minus before), so they add up to the MRR change exactly.
type DayTotals struct {
	NewBusiness     int64
	Expansion       int64
	Contraction     int64
	Churn           int64
	Reactivation    int64
	CustomersChange int64 // customers gained minus lost
	NewCustomers    int64 // customers paying for the first time (ASP)
}

func (d DayTotals) mrrChange() int64 {
	return d.NewBusiness + d.Expansion + d.Contraction + d.Churn + d.Reactivation
}

func (d *DayTotals) add(o DayTotals, sign int64) {
	d.NewBusiness += sign * o.NewBusiness
	d.Expansion += sign * o.Expansion
	d.Contraction += sign * o.Contraction
	d.Churn += sign * o.Churn
	d.Reactivation += sign * o.Reactivation
	d.CustomersChange += sign * o.CustomersChange
	d.NewCustomers += sign * o.NewCustomers
}

// PeriodKey names one calendar period: interval and its first day ("2006-01-02").
type PeriodKey struct {
	Interval string
	Start    string
}

// Aggregate is a sum of contributions: day buckets keyed by account-local date, and per period
// the customers that were customers at its start and no longer at its end (the numerator of
// the customer churn rate, which is not additive over days).
type Aggregate struct {
	Days map[string]DayTotals
	Lost map[PeriodKey]int64
}

// NewAggregate returns an empty aggregate.
func NewAggregate() *Aggregate {
	return &Aggregate{Days: map[string]DayTotals{}, Lost: map[PeriodKey]int64{}}
}

// Add adds sign × o (sign −1 removes a customer's old contribution). Buckets that become zero
// are deleted so an aggregate never grows from churn in the data.
func (a *Aggregate) Add(o *Aggregate, sign int64) {
	for k, v := range o.Days {
		d := a.Days[k]
		d.add(v, sign)
		if d == (DayTotals{}) {
			delete(a.Days, k)
		} else {
			a.Days[k] = d
		}
	}
	for k, v := range o.Lost {
		if n := a.Lost[k] + sign*v; n == 0 {
			delete(a.Lost, k)
		} else {
			a.Lost[k] = n
		}
	}
}

// step is one change of a customer's (possibly filtered) MRR.
type step struct {
	m                         engine.Movement
	typ                       string
	delta                     int64
	payingBefore, payingAfter bool
	first                     bool
}

// Contribution is what one customer adds to the aggregate of the given filter.
func Contribution(c Customer, cal Calendar, f Filter) *Aggregate {
	a := NewAggregate()
	if len(f.Countries) > 0 && !slices.Contains(f.Countries, c.Country) {
		return a
	}
	var steps []step
	if len(f.Plans) == 0 {
		steps = unfiltered(c.Movements)
	} else {
		steps = onPlans(c.Movements, f.Plans)
	}
	for _, s := range steps {
		key := dateKey(cal.dayOf(s.m.At))
		d := a.Days[key]
		switch s.typ {
		case engine.NewBusiness:
			d.NewBusiness += s.delta
		case engine.Expansion:
			d.Expansion += s.delta
		case engine.Contraction:
			d.Contraction += s.delta
		case engine.Churn:
			d.Churn += s.delta
		case engine.Reactivation:
			d.Reactivation += s.delta
		}
		d.CustomersChange += int64(boolInt(s.payingAfter) - boolInt(s.payingBefore))
		if s.first {
			d.NewCustomers++
		}
		a.Days[key] = d
	}
	addLost(a, steps, cal)
	for k, d := range a.Days {
		if d == (DayTotals{}) {
			delete(a.Days, k)
		}
	}
	return a
}

// unfiltered takes the engine's movements as they are, including its smart classification.
func unfiltered(ms []engine.Movement) []step {
	out := make([]step, 0, len(ms))
	for _, m := range ms {
		if m.Scheduled {
			continue
		}
		out = append(out, step{m: m, typ: m.Type, delta: m.CustomerMRR - m.CustomerMRRBefore,
			payingBefore: m.PayingBefore, payingAfter: m.PayingAfter, first: m.FirstPayment})
	}
	return out
}

// onPlans rebuilds the customer's MRR restricted to subscriptions on the plans and classifies
// its changes again: a customer counts while that restricted MRR is above zero.
func onPlans(ms []engine.Movement, plans []string) []step {
	var out []step
	var mrr int64
	everPaid := false
	for _, m := range ms {
		if m.Scheduled {
			continue
		}
		var before, after int64
		if slices.Contains(plans, m.PreviousPlanUUID) {
			before = m.SubscriptionMRRBefore
		}
		if slices.Contains(plans, m.PlanUUID) {
			after = m.SubscriptionMRRAfter
		}
		if before == after {
			continue
		}
		s := step{m: m, delta: after - before, payingBefore: mrr > 0}
		mrr += s.delta
		s.payingAfter = mrr > 0
		switch {
		case !s.payingBefore && s.payingAfter && everPaid:
			s.typ = engine.Reactivation
		case !s.payingBefore && s.payingAfter:
			s.typ, s.first, everPaid = engine.NewBusiness, true, true
		case s.payingBefore && !s.payingAfter:
			s.typ = engine.Churn
		case s.delta > 0:
			s.typ = engine.Expansion
		default:
			s.typ = engine.Contraction
		}
		out = append(out, s)
	}
	return out
}

// addLost counts, for every period of every interval in which the customer's state changed,
// whether it was a customer at the start and not at the end.
func addLost(a *Aggregate, steps []step, cal Calendar) {
	for _, interval := range Intervals {
		for i := 0; i < len(steps); {
			start := cal.periodStart(interval, cal.dayOf(steps[i].m.At))
			j := i
			for j+1 < len(steps) && cal.periodStart(interval, cal.dayOf(steps[j+1].m.At)).Equal(start) {
				j++
			}
			if steps[i].payingBefore && !steps[j].payingAfter {
				a.Lost[PeriodKey{interval, dateKey(start)}]++
			}
			i = j + 1
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
