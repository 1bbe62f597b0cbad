package series

import (
	"fmt"
	"time"
)

// Intervals of the Metrics API.
const (
	Day     = "day"
	Week    = "week"
	Month   = "month"
	Quarter = "quarter"
	Year    = "year"
)

// Calendar is the account's time zone and first day of the week; all days are civil dates in it.
type Calendar struct {
	Location  *time.Location
	WeekStart time.Weekday
}

func (c Calendar) loc() *time.Location {
	if c.Location == nil {
		return time.UTC
	}
	return c.Location
}

// dayOf is the account-local civil date of an instant, as a UTC midnight for arithmetic.
func (c Calendar) dayOf(t time.Time) time.Time {
	y, m, d := t.In(c.loc()).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// periodStart is the first day of the interval containing day.
func (c Calendar) periodStart(interval string, day time.Time) time.Time {
	y, m, _ := day.Date()
	switch interval {
	case Week:
		back := (int(day.Weekday()) - int(c.WeekStart) + 7) % 7
		return day.AddDate(0, 0, -back)
	case Month:
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case Quarter:
		return time.Date(y, (m-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case Year:
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return day
}

// nextPeriodStart is the first day of the interval after the one starting at start.
func nextPeriodStart(interval string, start time.Time) time.Time {
	switch interval {
	case Week:
		return start.AddDate(0, 0, 7)
	case Month:
		return start.AddDate(0, 1, 0)
	case Quarter:
		return start.AddDate(0, 3, 0)
	case Year:
		return start.AddDate(1, 0, 0)
	}
	return start.AddDate(0, 0, 1)
}

// Intervals lists the valid interval names.
var Intervals = []string{Day, Week, Month, Quarter, Year}

func validInterval(s string) error {
	for _, v := range Intervals {
		if v == s {
			return nil
		}
	}
	return fmt.Errorf("interval %q must be one of day, week, month, quarter, year", s)
}

func dateKey(t time.Time) string { return t.Format(time.DateOnly) }
