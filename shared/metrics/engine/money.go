package engine

import (
	"fmt"
	"math/big"
	"time"
)

// daysPerMonth is 365.2425 / 12 = 30.436875 as an exact fraction; fixtures pin it (a 7-day plan
// at 1000 cents gives 4348, §1.4).
var daysPerMonth = big.NewRat(30436875, 1000000)

// monthlyRatio normalises one plan interval to a month.
func monthlyRatio(p Plan) (*big.Rat, error) {
	if p.IntervalCount <= 0 {
		return nil, fmt.Errorf("plan %s has interval_count %d", p.UUID, p.IntervalCount)
	}
	n := int64(p.IntervalCount)
	switch p.IntervalUnit {
	case "month":
		return big.NewRat(1, n), nil
	case "year":
		return big.NewRat(1, 12*n), nil
	case "day":
		return new(big.Rat).Quo(daysPerMonth, big.NewRat(n, 1)), nil
	}
	return nil, fmt.Errorf("plan %s has interval_unit %q", p.UUID, p.IntervalUnit)
}

// intervalBefore returns end minus one plan interval; months clamp to the last day of the
// month (31 March − 1 month = 28/29 February) instead of overflowing as time.AddDate does.
func intervalBefore(end time.Time, p Plan) time.Time {
	switch p.IntervalUnit {
	case "day":
		return end.AddDate(0, 0, -p.IntervalCount)
	case "year":
		return addMonthsClamped(end, -12*p.IntervalCount)
	}
	return addMonthsClamped(end, -p.IntervalCount)
}

func addMonthsClamped(t time.Time, months int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(months), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(d, last)-1)
}

// prorateFactor is estimated full period / prorated period (§1.4), the full
// period being one plan interval ending at service_period_end.
func prorateFactor(start, end time.Time, p Plan) *big.Rat {
	full := end.Sub(intervalBefore(end, p))
	part := end.Sub(start)
	return new(big.Rat).SetFrac(big.NewInt(int64(full)), big.NewInt(int64(part)))
}

// lineMRR is the documented formula, rounded to a whole cent of the invoice currency:
// round((amount − tax) × ratio × prorate factor). withProrate is false for differential_mrr.
func lineMRR(it LineItem, p Plan, withProrate bool) (int64, error) {
	ratio, err := monthlyRatio(p)
	if err != nil {
		return 0, err
	}
	v := new(big.Rat).SetInt64(it.AmountInCents - it.TaxAmountInCents)
	v.Mul(v, ratio)
	if withProrate && it.Prorated {
		v.Mul(v, prorateFactor(it.ServicePeriodStart, it.ServicePeriodEnd, p))
	}
	return roundHalfAwayFromZero(v), nil
}

// roundHalfAwayFromZero rounds to the nearest integer, ties away from zero, so a credit and the
// matching charge round to opposite values.
func roundHalfAwayFromZero(v *big.Rat) int64 {
	num := new(big.Int).Abs(v.Num())
	q, r := new(big.Int).QuoRem(num, v.Denom(), new(big.Int))
	if r.Lsh(r, 1).Cmp(v.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if v.Sign() < 0 {
		q.Neg(q)
	}
	return q.Int64()
}

// truncate drops the fraction (toward zero). Reported values are truncated from exact sums:
// converted fixture values show truncation (10908.61 → 10908, §5).
func truncate(v *big.Rat) int64 {
	return new(big.Int).Quo(v.Num(), v.Denom()).Int64()
}

func ratOf(v int64) *big.Rat { return new(big.Rat).SetInt64(v) }
