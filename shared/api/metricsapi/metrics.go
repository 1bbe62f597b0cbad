package metricsapi

import (
	"context"
	"net/http"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/metricsfilter"
)

// metric is one headline metric of the Metrics API: its key in entries and summaries.
type metric struct {
	key    string
	value  func(series.Values) any
	change func(series.Changes) float64
}

var (
	metricMRR  = metric{"mrr", func(v series.Values) any { return v.MRR }, func(c series.Changes) float64 { return c.MRR }}
	metricARR  = metric{"arr", func(v series.Values) any { return v.ARR }, func(c series.Changes) float64 { return c.ARR }}
	metricARPA = metric{"arpa", func(v series.Values) any { return v.ARPA },
		func(c series.Changes) float64 { return c.ARPA }}
	metricASP       = metric{"asp", func(v series.Values) any { return v.ASP }, func(c series.Changes) float64 { return c.ASP }}
	metricCustomers = metric{"customers", func(v series.Values) any { return v.Customers },
		func(c series.Changes) float64 { return c.Customers }}
	metricCustomerChurnRate = metric{"customer-churn-rate", func(v series.Values) any { return v.CustomerChurnRate },
		func(c series.Changes) float64 { return c.CustomerChurnRate }}
	metricMRRChurnRate = metric{"mrr-churn-rate", func(v series.Values) any { return v.MRRChurnRate },
		func(c series.Changes) float64 { return c.MRRChurnRate }}
	metricLTV = metric{"ltv", func(v series.Values) any { return v.LTV }, func(c series.Changes) float64 { return c.LTV }}
)

// allMetrics are the metrics of /v1/metrics/all, in ChartMogul's order.
var allMetrics = []metric{metricCustomerChurnRate, metricMRRChurnRate, metricLTV, metricCustomers,
	metricASP, metricARPA, metricARR, metricMRR}

// Interval defaults, as ChartMogul answers without an interval (docs/metrics-api.md):
// balances by day, flows and rates by month; /all, which mixes both, by month.
const (
	balanceDefault = series.Day
	rateDefault    = series.Month
)

// MetricsAll is GET /v1/metrics/all.
func MetricsAll(d *api.Deps) apigw.Endpoint {
	return metricsEndpoint(d, rateDefault, func(resp series.Response) jsonobj.Object {
		entries := make([]jsonobj.Object, len(resp.Entries))
		for i, e := range resp.Entries {
			o := jsonobj.Object{{Key: "date", Value: e.Date}}
			for _, m := range allMetrics {
				o = append(o, jsonobj.Field{Key: m.key, Value: m.value(e.Values)},
					jsonobj.Field{Key: m.key + "-percentage-change", Value: m.change(e.PercentageChange)})
			}
			entries[i] = o
		}
		var summary jsonobj.Object
		for _, m := range allMetrics {
			summary = append(summary, jsonobj.Field{Key: "current-" + m.key, Value: m.value(resp.Summary.Current)},
				jsonobj.Field{Key: "previous-" + m.key, Value: m.value(resp.Summary.Previous)},
				jsonobj.Field{Key: m.key + "-percentage-change", Value: m.change(resp.Summary.PercentageChange)})
		}
		return jsonobj.Object{{Key: "entries", Value: entries}, {Key: "summary", Value: summary}}
	})
}

// fxImpactKey is the /mrr entry key of the exchange-rate impact: not a ChartMogul key,
// present only when the answer has an impact, so accounts billing in one currency get
// exactly ChartMogul's entries (docs/metrics-api.md).
const fxImpactKey = "mrr-exchange-rate-impact"

// MetricsMRR is GET /v1/metrics/mrr: MRR with its five movements and, for accounts billing
// in several currencies, the exchange-rate impact that completes the identity.
func MetricsMRR(d *api.Deps) apigw.Endpoint {
	return singleMetric(d, metricMRR, balanceDefault, func(resp series.Response) func(series.Values) jsonobj.Object {
		withImpact := resp.HasExchangeRateImpact()
		return func(v series.Values) jsonobj.Object {
			o := jsonobj.Object{{Key: "mrr-new-business", Value: v.NewBusiness}, {Key: "mrr-expansion", Value: v.Expansion},
				{Key: "mrr-contraction", Value: v.Contraction}, {Key: "mrr-churn", Value: v.Churn},
				{Key: "mrr-reactivation", Value: v.Reactivation}}
			if withImpact {
				o = append(o, jsonobj.Field{Key: fxImpactKey, Value: v.ExchangeRateImpact})
			}
			return o
		}
	})
}

// MetricsARR is GET /v1/metrics/arr.
func MetricsARR(d *api.Deps) apigw.Endpoint { return singleMetric(d, metricARR, balanceDefault, nil) }

// MetricsARPA is GET /v1/metrics/arpa.
func MetricsARPA(d *api.Deps) apigw.Endpoint { return singleMetric(d, metricARPA, balanceDefault, nil) }

// MetricsASP is GET /v1/metrics/asp.
func MetricsASP(d *api.Deps) apigw.Endpoint { return singleMetric(d, metricASP, rateDefault, nil) }

// MetricsCustomerCount is GET /v1/metrics/customer-count.
func MetricsCustomerCount(d *api.Deps) apigw.Endpoint {
	return singleMetric(d, metricCustomers, balanceDefault, nil)
}

// MetricsCustomerChurnRate is GET /v1/metrics/customer-churn-rate.
func MetricsCustomerChurnRate(d *api.Deps) apigw.Endpoint {
	return singleMetric(d, metricCustomerChurnRate, rateDefault, nil)
}

// MetricsMRRChurnRate is GET /v1/metrics/mrr-churn-rate (net).
func MetricsMRRChurnRate(d *api.Deps) apigw.Endpoint {
	return singleMetric(d, metricMRRChurnRate, rateDefault, nil)
}

// MetricsLTV is GET /v1/metrics/ltv.
func MetricsLTV(d *api.Deps) apigw.Endpoint { return singleMetric(d, metricLTV, rateDefault, nil) }

// MetricsUnknown is GET /v1/metrics/{metric} for any other name: a 400, not a 404, as
// the route exists and only the parameter is wrong.
func MetricsUnknown(*api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(_ context.Context, r *apigw.Request) (apigw.Response, error) {
		return apigw.Response{}, apperr.BadRequest("metric", "Unknown metric %q (one of all, mrr, arr, arpa, asp, "+
			"customer-count, customer-churn-rate, mrr-churn-rate, ltv)", r.PathParam("metric"))
	}}
}

// singleMetric answers entries {date, <key>, percentage-change, extra...} and summary
// {current, previous, percentage-change}; extra, given the whole answer, renders the
// additional keys of one entry.
func singleMetric(d *api.Deps, m metric, defaultInterval string,
	extra func(series.Response) func(series.Values) jsonobj.Object) apigw.Endpoint {
	return metricsEndpoint(d, defaultInterval, func(resp series.Response) jsonobj.Object {
		var more func(series.Values) jsonobj.Object
		if extra != nil {
			more = extra(resp)
		}
		entries := make([]jsonobj.Object, len(resp.Entries))
		for i, e := range resp.Entries {
			o := jsonobj.Object{{Key: "date", Value: e.Date}, {Key: m.key, Value: m.value(e.Values)},
				{Key: "percentage-change", Value: m.change(e.PercentageChange)}}
			if more != nil {
				o = append(o, more(e.Values)...)
			}
			entries[i] = o
		}
		summary := jsonobj.Object{{Key: "current", Value: m.value(resp.Summary.Current)},
			{Key: "previous", Value: m.value(resp.Summary.Previous)},
			{Key: "percentage-change", Value: m.change(resp.Summary.PercentageChange)}}
		return jsonobj.Object{{Key: "entries", Value: entries}, {Key: "summary", Value: summary}}
	})
}

// metricsEndpoint validates the query, reads the account's stored series and renders.
func metricsEndpoint(d *api.Deps, defaultInterval string, render func(series.Response) jsonobj.Object) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		q, err := parseMetricsQuery(r, defaultInterval)
		if err != nil {
			return apigw.Response{}, err
		}
		resp, err := computeMetrics(ctx, d, r.AccountID, q)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, render(resp))
	}}
}

func computeMetrics(ctx context.Context, d *api.Deps, accountID string, q metricsQuery) (series.Response, error) {
	acc, err := storage(d).GetAccount(ctx, accountID)
	if err != nil {
		return series.Response{}, err
	}
	cal := accountseries.Calendar(acc)
	agg, err := metricsfilter.New(storage(d), d.Series()).Aggregate(ctx, acc,
		metricsfilter.Request{Countries: q.countries, Plans: q.plans, Filters: q.filters},
		accountseries.WindowStart(cal, q.interval, q.start), q.end)
	if err != nil {
		return series.Response{}, err
	}
	resp, err := series.Compute(agg, cal, q.seriesQuery())
	if err != nil {
		return series.Response{}, apperr.BadRequest("", "%s", err.Error())
	}
	return resp, nil
}
