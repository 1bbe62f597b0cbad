package metricsapi

import (
	"strings"
	"time"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/metricsfilter"
)

// Bounds that keep one metrics request cheap whatever the client asks (the filters'
// own bounds are metricsfilter's).
const (
	maxMetricEntries = 5000 // about 13 years by day
	maxMetricYears   = 100
	maxFilterValues  = 50
)

// metricsQuery is a validated Metrics API query.
type metricsQuery struct {
	start, end time.Time
	interval   string
	countries  []string
	plans      []string // as sent: names, external ids or uuids
	filters    string   // ChartMogul Filter Language, checked by metricsfilter
}

func (q metricsQuery) seriesQuery() series.Query {
	return series.Query{Start: q.start.Format(time.DateOnly), End: q.end.Format(time.DateOnly), Interval: q.interval}
}

// parseMetricsQuery reads start-date, end-date, interval, geo, plans and filters (whose
// expression metricsfilter checks); every mistake is a 400 naming the parameter.
func parseMetricsQuery(r *apigw.Request, defaultInterval string) (metricsQuery, error) {
	var q metricsQuery
	var err error
	if q.start, err = metricDate(r, "start-date"); err != nil {
		return q, err
	}
	if q.end, err = metricDate(r, "end-date"); err != nil {
		return q, err
	}
	if q.end.Before(q.start) {
		return q, apperr.BadRequest("end-date", "Parameter \"end-date\" must not be before \"start-date\"")
	}
	if q.end.After(q.start.AddDate(maxMetricYears, 0, 0)) {
		return q, apperr.BadRequest("end-date", "The date range must not exceed %d years", maxMetricYears)
	}
	q.interval = strings.ToLower(strings.TrimSpace(r.Query("interval")))
	if q.interval == "" {
		q.interval = defaultInterval
	}
	if !series.ValidInterval(q.interval) {
		return q, apperr.BadRequest("interval", "Invalid value for parameter \"interval\": %q (one of day, week, month, quarter, year)", r.Query("interval"))
	}
	if n := approxEntries(q); n > maxMetricEntries {
		return q, apperr.BadRequest("interval", "The range has %d %s intervals; at most %d are allowed", n, q.interval, maxMetricEntries)
	}
	for _, c := range splitList(r.Query("geo")) {
		c = strings.ToUpper(c)
		if len(c) != 2 || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return q, apperr.BadRequest("geo", "Invalid value for parameter \"geo\": %q is not an ISO 3166-1 alpha-2 country code", c)
		}
		q.countries = appendUnique(q.countries, c)
	}
	q.filters = strings.TrimSpace(r.Query("filters"))
	for _, p := range splitList(r.Query("plans")) {
		q.plans = appendUnique(q.plans, p)
	}
	if len(q.countries) > maxFilterValues || len(q.plans) > maxFilterValues ||
		max(1, len(q.countries))*max(1, len(q.plans)) > metricsfilter.MaxSegments {
		return q, apperr.BadRequest("geo", "Too many geo and plans values (at most %d combinations)", metricsfilter.MaxSegments)
	}
	return q, nil
}

func metricDate(r *apigw.Request, param string) (time.Time, error) {
	raw := strings.TrimSpace(r.Query(param))
	if raw == "" {
		return time.Time{}, apperr.MissingParam(param)
	}
	t, err := time.Parse(time.DateOnly, raw)
	if err != nil {
		return time.Time{}, apperr.BadRequest(param, "Invalid value for parameter %q: %q is not a date (YYYY-MM-DD)", param, raw)
	}
	return t, nil
}

func approxEntries(q metricsQuery) int {
	days := int(q.end.Sub(q.start).Hours()/24) + 1
	switch q.interval {
	case series.Week:
		return days/7 + 2
	case series.Month:
		return days/28 + 2
	case series.Quarter:
		return days/90 + 2
	case series.Year:
		return days/365 + 2
	}
	return days
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func appendUnique(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
