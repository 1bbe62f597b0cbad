package model

import (
	"fmt"
	"strings"
)

// CalendarSettings are the account fields that set the calendar of its metrics: the day
// boundaries (time zone) and the weeks (first day).
var CalendarSettings = []string{"time_zone", "week_start_on"}

// SetCalendar changes the time zone or the week start by name, validating the value.
func (a *Account) SetCalendar(name, value string) error {
	switch name {
	case "time_zone":
		a.TimeZone = value
	case "week_start_on":
		a.WeekStartOn = strings.ToLower(value)
	default:
		return fmt.Errorf("unknown calendar setting %q (one of %s)", name, strings.Join(CalendarSettings, ", "))
	}
	return a.Validate()
}
