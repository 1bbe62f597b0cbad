// Package timefmt renders and parses timestamps in the formats ChartMogul uses per
// field family (docs/api.md, "Dates and times"). Everything is stored in UTC.
package timefmt

import (
	"fmt"
	"strings"
	"time"
)

// Millis renders "2016-01-01T12:00:00.000Z" (import objects, notes, data sources).
func Millis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Seconds renders "2022-05-18T09:48:34Z" (subscription events, json imports).
func Seconds(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// Offset renders "2016-01-01T12:00:00+00:00" (customer-since, metrics, activities).
func Offset(t time.Time) string { return t.Format("2006-01-02T15:04:05-07:00") }

// Nanos renders "2024-01-31T12:00:00.000000000Z": fixed width and UTC, so that string
// order is time order (sort keys, ordering of equal-looking instants).
func Nanos(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// Date renders "2015-01-31".
func Date(t time.Time) string { return t.Format("2006-01-02") }

// MillisPtr renders an optional timestamp; nil stays null.
func MillisPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Millis(*t)
	return &s
}

var layouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02 15:04:05 MST",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 -07:00",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
}

// Parse reads an ISO 8601 timestamp in any of the forms ChartMogul accepts; a value
// without a zone is UTC, a date alone is midnight UTC.
func Parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 timestamp", s)
}
