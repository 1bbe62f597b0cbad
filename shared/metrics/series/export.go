package series

import "time"

// PeriodStart is the first day of the interval containing day (a civil date at UTC
// midnight): storage layers use it to know which buckets a query needs.
func (c Calendar) PeriodStart(interval string, day time.Time) time.Time {
	return c.periodStart(interval, day)
}

// DayOf is the account-local civil date of an instant, as a UTC midnight.
func (c Calendar) DayOf(t time.Time) time.Time { return c.dayOf(t) }

// ValidInterval reports whether s is one of Intervals.
func ValidInterval(s string) bool { return validInterval(s) == nil }
