package metricsapi

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/store"
)

// Bounds that keep one metrics request cheap whatever the client asks.
const (
	maxMetricEntries  = 5000 // about 13 years by day
	maxMetricYears    = 100
	maxMetricSegments = 100 // countries × plans
	maxFilterValues   = 50
	// maxMetricSeriesRead bounds the stored series one request reads: the country × plan
	// pairs plus the plan-combination series of the customers paying on several of the
	// plans (accountseries.Series.FilterSegments).
	maxMetricSeriesRead = 300
)

// metricsQuery is a validated Metrics API query.
type metricsQuery struct {
	start, end time.Time
	interval   string
	countries  []string
	plans      []string // as sent: names, external ids or uuids
}

func (q metricsQuery) seriesQuery() series.Query {
	return series.Query{Start: q.start.Format(time.DateOnly), End: q.end.Format(time.DateOnly), Interval: q.interval}
}

// parseMetricsQuery reads start-date, end-date, interval, geo and plans; every mistake
// is a 400 naming the parameter.
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
	// ChartMogul's newer segmentation expressions have no published grammar to follow;
	// answering them unfiltered would chart the wrong customers, so they are refused.
	if strings.TrimSpace(r.Query("filters")) != "" {
		return q, apperr.BadRequest("filters", "Parameter \"filters\" is not supported; filter with \"geo\" and \"plans\"")
	}
	for _, p := range splitList(r.Query("plans")) {
		q.plans = appendUnique(q.plans, p)
	}
	if len(q.countries) > maxFilterValues || len(q.plans) > maxFilterValues ||
		max(1, len(q.countries))*max(1, len(q.plans)) > maxMetricSegments {
		return q, apperr.BadRequest("geo", "Too many geo and plans values (at most %d combinations)", maxMetricSegments)
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

// resolvePlans maps plan names, external ids and uuids to plan uuids. Tokens that name
// no plan match nothing (the series of an unknown plan is empty). Uuids cost one read,
// external ids one index query; names, which have no index, one pass over the
// account's plans, done only if some token was not found otherwise.
func resolvePlans(ctx context.Context, d *api.Deps, accountID string, tokens []string) ([]string, error) {
	var out, byName []string
	for _, tok := range tokens {
		if ids.Valid(tok, ids.Plan) {
			p, err := d.Store.GetPlan(ctx, accountID, tok)
			if err == nil {
				out = appendUnique(out, p.UUID)
				continue
			}
			if !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
		}
		page, err := d.Store.ListPlans(ctx, accountID, store.PlanFilter{ExternalID: tok}, apigw.MaxPerPage, nil)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Items {
			out = appendUnique(out, p.UUID)
		}
		if len(page.Items) == 0 {
			byName = append(byName, tok)
		}
	}
	if len(byName) == 0 {
		return out, nil
	}
	page, err := d.Store.ListPlans(ctx, accountID, store.PlanFilter{}, apigw.MaxPerPage, nil)
	for {
		if err != nil {
			return nil, err
		}
		for _, p := range page.Items {
			for _, name := range byName {
				if p.Name == name {
					out = appendUnique(out, p.UUID)
				}
			}
		}
		if !page.HasMore {
			return out, nil
		}
		page, err = d.Store.ListPlans(ctx, accountID, store.PlanFilter{}, apigw.MaxPerPage, page.Next)
	}
}
