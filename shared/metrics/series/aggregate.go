package series

import (
	"slices"
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
)

// Customer is what the series need from one customer: its movements and exchange-rate
// impacts in date order (scheduled ones are skipped), and the attributes filters use.
type Customer struct {
	UUID                string
	Country             string
	Movements           []engine.Movement
	ExchangeRateImpacts []engine.ExchangeRateImpact
}

// Filter restricts a series to customers of some countries and to subscriptions on some plans
// (plan uuids; the HTTP layer resolves names and external ids). Empty means no restriction.
type Filter struct {
	Countries []string
	Plans     []string
}

// DayTotals are one day's additive quantities. The five movement sums and the exchange-rate
// impact are changes of the customers' MRR (after minus before), so together they add up to
// the MRR change exactly.
type DayTotals struct {
	NewBusiness        int64
	Expansion          int64
	Contraction        int64
	Churn              int64
	Reactivation       int64
	ExchangeRateImpact int64 // foreign-currency MRR repriced at new rates: no movement
	CustomersChange    int64 // customers gained minus lost
	NewCustomers       int64 // customers paying for the first time (ASP)
}

// MRRChange is the day's change of MRR: movements plus exchange-rate impact.
func (d DayTotals) MRRChange() int64 {
	return d.NewBusiness + d.Expansion + d.Contraction + d.Churn + d.Reactivation + d.ExchangeRateImpact
}

func (d *DayTotals) add(o DayTotals, sign int64) {
	d.NewBusiness += sign * o.NewBusiness
	d.Expansion += sign * o.Expansion
	d.Contraction += sign * o.Contraction
	d.Churn += sign * o.Churn
	d.Reactivation += sign * o.Reactivation
	d.ExchangeRateImpact += sign * o.ExchangeRateImpact
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

// step is one change of a customer's (possibly filtered) MRR: a movement of type typ, or
// an exchange-rate impact (fx), which changes neither the type nor the customer count.
type step struct {
	at                        time.Time
	typ                       string
	fx                        bool
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
		steps = unfiltered(changesOf(c))
	} else {
		steps = onPlans(changesOf(c), f.Plans)
	}
	for _, s := range steps {
		key := dateKey(cal.dayOf(s.at))
		d := a.Days[key]
		if s.fx {
			d.ExchangeRateImpact += s.delta
			a.Days[key] = d
			continue
		}
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
	addLost(a, slices.DeleteFunc(steps, func(s step) bool { return s.fx }), cal)
	for k, d := range a.Days {
		if d == (DayTotals{}) {
			delete(a.Days, k)
		}
	}
	return a
}

// change is one real movement or exchange-rate impact of a customer.
type change struct {
	m  *engine.Movement
	fx *engine.ExchangeRateImpact
}

func (c change) at() time.Time {
	if c.fx != nil {
		return c.fx.At
	}
	return c.m.At
}

// changesOf merges the customer's real movements and impacts in the engine's order: by
// time, impacts first at an instant (the movements start from the repriced MRR).
func changesOf(c Customer) []change {
	out := make([]change, 0, len(c.Movements)+len(c.ExchangeRateImpacts))
	for i := range c.ExchangeRateImpacts {
		if !c.ExchangeRateImpacts[i].Scheduled {
			out = append(out, change{fx: &c.ExchangeRateImpacts[i]})
		}
	}
	for i := range c.Movements {
		if !c.Movements[i].Scheduled {
			out = append(out, change{m: &c.Movements[i]})
		}
	}
	// Stable: the impacts, listed first, stay before the movements of their instant.
	slices.SortStableFunc(out, func(a, b change) int { return a.at().Compare(b.at()) })
	return out
}

// unfiltered takes the engine's movements as they are, including its smart classification.
func unfiltered(cs []change) []step {
	out := make([]step, 0, len(cs))
	for _, c := range cs {
		if f := c.fx; f != nil {
			out = append(out, step{at: f.At, fx: true, delta: f.CustomerMRR - f.CustomerMRRBefore})
			continue
		}
		m := c.m
		out = append(out, step{at: m.At, typ: m.Type, delta: m.CustomerMRR - m.CustomerMRRBefore,
			payingBefore: m.PayingBefore, payingAfter: m.PayingAfter, first: m.FirstPayment})
	}
	return out
}

// onPlans rebuilds the customer's MRR restricted to subscriptions on the plans and classifies
// its changes again: a customer counts while that restricted MRR is above zero. An impact
// reprices a subscription on its plan; rates are positive, so it never moves that MRR
// across zero and stays an impact.
func onPlans(cs []change, plans []string) []step {
	var out []step
	var mrr int64
	everPaid := false
	for _, c := range cs {
		if f := c.fx; f != nil {
			if slices.Contains(plans, f.PlanUUID) && f.SubscriptionMRRAfter != f.SubscriptionMRRBefore {
				delta := f.SubscriptionMRRAfter - f.SubscriptionMRRBefore
				mrr += delta
				out = append(out, step{at: f.At, fx: true, delta: delta})
			}
			continue
		}
		m := c.m
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
		s := step{at: m.At, delta: after - before, payingBefore: mrr > 0}
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
			start := cal.periodStart(interval, cal.dayOf(steps[i].at))
			j := i
			for j+1 < len(steps) && cal.periodStart(interval, cal.dayOf(steps[j+1].at)).Equal(start) {
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
