package series

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Query is one Metrics API request: civil dates in the account time zone, and an interval.
type Query struct {
	Start    string // "2006-01-02"
	End      string
	Interval string
}

// Values are every metric of one entry (§6).
type Values struct {
	MRR          int64
	NewBusiness  int64
	Expansion    int64
	Contraction  int64 // ≤ 0
	Churn        int64 // ≤ 0
	Reactivation int64
	// ExchangeRateImpact is the change of MRR that no movement explains (foreign-currency
	// MRR repriced at new rates): MRR at the start + movements + it = MRR at the end.
	ExchangeRateImpact int64
	ARR                int64
	Customers          int64
	ARPA               int64
	ASP                int64
	CustomerChurnRate  float64 // percent, 2 decimals
	MRRChurnRate       float64 // net, percent, 2 decimals
	LTV                int64
}

// Changes are percentage changes of the headline metrics versus the previous value.
type Changes struct {
	MRR, ARR, Customers, ARPA, ASP, CustomerChurnRate, MRRChurnRate, LTV float64
}

// Entry is one interval, dated at its last day (or End when the interval runs past it).
type Entry struct {
	Date             string
	Values           Values
	PercentageChange Changes
}

// Summary compares the last entry with the whole interval before it (ambiguity A8).
type Summary struct {
	Current, Previous Values
	PercentageChange  Changes
}

// Response is the body of /v1/metrics/all; single-metric endpoints pick their fields.
type Response struct {
	Entries []Entry
	Summary Summary
}

// HasExchangeRateImpact reports whether any entry has an exchange-rate impact (only
// accounts billing in several currencies have one).
func (r Response) HasExchangeRateImpact() bool {
	return slices.ContainsFunc(r.Entries, func(e Entry) bool { return e.Values.ExchangeRateImpact != 0 })
}

// Compute produces the entries and summary of a query from an aggregate.
func Compute(a *Aggregate, cal Calendar, q Query) (Response, error) {
	start, err := time.Parse(time.DateOnly, q.Start)
	if err != nil {
		return Response{}, fmt.Errorf("start-date %q is not a date", q.Start)
	}
	end, err := time.Parse(time.DateOnly, q.End)
	if err != nil {
		return Response{}, fmt.Errorf("end-date %q is not a date", q.End)
	}
	if end.Before(start) {
		return Response{}, fmt.Errorf("end-date is before start-date")
	}
	if err := validInterval(q.Interval); err != nil {
		return Response{}, err
	}
	r := newReader(a)
	var resp Response
	var prev *Values
	for ps := cal.periodStart(q.Interval, start); !ps.After(end); ps = nextPeriodStart(q.Interval, ps) {
		from := maxTime(ps, start)
		to := minTime(nextPeriodStart(q.Interval, ps).AddDate(0, 0, -1), end)
		v := r.values(q.Interval, ps, from, to)
		e := Entry{Date: dateKey(to), Values: v}
		if prev != nil {
			e.PercentageChange = changes(*prev, v)
		}
		resp.Entries = append(resp.Entries, e)
		prev = &resp.Entries[len(resp.Entries)-1].Values
	}
	last := resp.Entries[len(resp.Entries)-1]
	lastStart := cal.periodStart(q.Interval, mustDate(last.Date))
	before := previousPeriodStart(q.Interval, lastStart, cal)
	resp.Summary = Summary{Current: last.Values,
		Previous: r.values(q.Interval, before, before, lastStart.AddDate(0, 0, -1))}
	resp.Summary.PercentageChange = changes(resp.Summary.Previous, resp.Summary.Current)
	return resp, nil
}

func previousPeriodStart(interval string, start time.Time, cal Calendar) time.Time {
	return cal.periodStart(interval, start.AddDate(0, 0, -1))
}

// reader answers "balance at the end of a day" and "sums over days" from the day buckets. A
// store would keep running balances at period boundaries instead of summing from the start.
type reader struct {
	a    *Aggregate
	days []string // sorted keys
}

func newReader(a *Aggregate) reader {
	days := make([]string, 0, len(a.Days))
	for k := range a.Days {
		days = append(days, k)
	}
	slices.Sort(days)
	return reader{a: a, days: days}
}

// sum adds the day buckets in [from, to]; a zero from means "since the beginning".
func (r reader) sum(from, to time.Time) DayTotals {
	var t DayTotals
	lo := ""
	if !from.IsZero() {
		lo = dateKey(from)
	}
	hi := dateKey(to)
	i, _ := slices.BinarySearch(r.days, lo)
	for ; i < len(r.days) && r.days[i] <= hi; i++ {
		t.add(r.a.Days[r.days[i]], 1)
	}
	return t
}

// values computes one entry over [from, to] of the period starting at periodStart.
func (r reader) values(interval string, periodStart, from, to time.Time) Values {
	opening := r.sum(time.Time{}, from.AddDate(0, 0, -1))
	flow := r.sum(from, to)
	startMRR, startCustomers := opening.MRRChange(), opening.CustomersChange
	v := Values{
		MRR:                startMRR + flow.MRRChange(),
		NewBusiness:        flow.NewBusiness,
		Expansion:          flow.Expansion,
		Contraction:        flow.Contraction,
		Churn:              flow.Churn,
		Reactivation:       flow.Reactivation,
		ExchangeRateImpact: flow.ExchangeRateImpact,
		Customers:          startCustomers + flow.CustomersChange,
	}
	v.ARR = 12 * v.MRR
	if v.Customers > 0 {
		v.ARPA = v.MRR / v.Customers // truncated, as the fixtures show
	}
	if flow.NewCustomers > 0 {
		v.ASP = flow.NewBusiness / flow.NewCustomers
	}
	// The churn rates are measured against the start of the calendar period, so a period cut
	// by start-date still uses the full period's lost-customer count (see docs).
	periodOpening := r.sum(time.Time{}, periodStart.AddDate(0, 0, -1))
	if n := periodOpening.CustomersChange; n > 0 {
		v.CustomerChurnRate = round2(float64(r.a.Lost[PeriodKey{interval, dateKey(periodStart)}]) / float64(n) * 100)
	}
	if startMRR > 0 {
		net := -flow.Churn - flow.Contraction - flow.Expansion - flow.Reactivation
		v.MRRChurnRate = round2(float64(net) / float64(startMRR) * 100)
	}
	v.LTV = LTV(v.ARPA, v.CustomerChurnRate) // same-interval churn rate (A6)
	return v
}

// LTV is ARPA ÷ customer churn rate, truncated, 0 when nobody churned. The rate is already
// rounded to 2 decimals, so it is exact in basis points and the division stays in integers.
func LTV(arpa int64, churnRatePercent float64) int64 {
	bp := int64(math.Round(churnRatePercent * 100))
	if bp <= 0 {
		return 0
	}
	return arpa * 10000 / bp
}

// PercentageChange is (cur − prev) / |prev| × 100 to 2 decimals, 0 when prev is 0.
func PercentageChange(prev, cur float64) float64 {
	if prev == 0 {
		return 0
	}
	return round2((cur - prev) / math.Abs(prev) * 100)
}

func changes(p, c Values) Changes {
	f := func(a, b int64) float64 { return PercentageChange(float64(a), float64(b)) }
	return Changes{
		MRR: f(p.MRR, c.MRR), ARR: f(p.ARR, c.ARR), Customers: f(p.Customers, c.Customers),
		ARPA: f(p.ARPA, c.ARPA), ASP: f(p.ASP, c.ASP), LTV: f(p.LTV, c.LTV),
		CustomerChurnRate: PercentageChange(p.CustomerChurnRate, c.CustomerChurnRate),
		MRRChurnRate:      PercentageChange(p.MRRChurnRate, c.MRRChurnRate),
	}
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func mustDate(s string) time.Time {
	t, _ := time.Parse(time.DateOnly, s)
	return t
}
