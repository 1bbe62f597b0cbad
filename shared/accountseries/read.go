package accountseries

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
)

// Segments names the single-plan series a filter reads: geo and plans combine as every
// country × plan pair. A filter of several plans also needs the combination segments
// that FilterSegments adds.
func Segments(countries, planUUIDs []string) []string {
	switch {
	case len(countries) == 0 && len(planUUIDs) == 0:
		return []string{segmentAll}
	case len(planUUIDs) == 0:
		out := make([]string, len(countries))
		for i, c := range countries {
			out[i] = geoSegment(c)
		}
		return out
	case len(countries) == 0:
		out := make([]string, len(planUUIDs))
		for i, p := range planUUIDs {
			out[i] = planSegment(p)
		}
		return out
	}
	var out []string
	for _, c := range countries {
		for _, p := range planUUIDs {
			out = append(out, geoPlanSegment(c, planSegment(p)))
		}
	}
	return out
}

// WindowStart is the first day a query over [start, end] by interval needs: the start
// of the interval before the one containing start (the summary's "previous" and the
// churn rate of a period cut by start-date look that far back).
func WindowStart(cal series.Calendar, interval string, start time.Time) time.Time {
	return cal.PeriodStart(interval, cal.PeriodStart(interval, start).AddDate(0, 0, -1))
}

// Load reads the segments' buckets for a query window [from, to] (civil dates) into one
// aggregate that series.Compute answers exactly as if it held every customer's
// contribution: the day sums and lost counts of the window's months, and everything
// before the window folded into one opening bucket on the day before its first month.
// Per segment: one BatchGetItem (index and one year item) and one Query (the months).
// Segments are read loadConcurrency at a time.
func (s *Series) Load(ctx context.Context, accountID string, segments []string, from, to time.Time) (*series.Aggregate, error) {
	parts := make([]*series.Aggregate, len(segments))
	errs := make([]error, len(segments))
	parallel.For(len(segments), loadConcurrency, func(i int) {
		parts[i], errs[i] = s.loadSegment(ctx, accountID, segments[i], from, to)
	})
	agg := series.NewAggregate()
	for i, a := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		agg.Add(a, 1)
	}
	return agg, nil
}

// loadConcurrency bounds the segments read at once by one request (a filter of several
// countries and plans reads one segment per pair).
const loadConcurrency = 8

func (s *Series) loadSegment(ctx context.Context, accountID, segment string, from, to time.Time) (*series.Aggregate, error) {
	firstMonth := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
	points, months, err := s.store.SeriesWindow(ctx, accountID, segment,
		[]string{keys.SeriesIndexSK, keys.SeriesYearSK(firstMonth.Format("2006"))},
		keys.SeriesMonthSK(firstMonth.Format("2006-01")), keys.SeriesMonthSK(to.Format("2006-01")))
	if err != nil {
		return nil, err
	}
	return windowAggregate(points, months, firstMonth)
}

// windowAggregate turns the bucket items of a window into the aggregate series.Compute
// reads: the opening MRR and customers (from the index item and the first month's year
// item, points) on the day before firstMonth, then the month items' days and lost counts.
func windowAggregate(points, months []store.SeriesBucket, firstMonth time.Time) (*series.Aggregate, error) {
	openingMRR, openingCustomers := opening(points, firstMonth)
	a := series.NewAggregate()
	if openingMRR != 0 || openingCustomers != 0 {
		a.Days[firstMonth.AddDate(0, 0, -1).Format(time.DateOnly)] = series.DayTotals{
			NewBusiness: openingMRR, CustomersChange: openingCustomers}
	}
	for _, m := range months {
		if err := addMonthItem(a, m); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// opening sums the net MRR and customer changes of every month before firstMonth from
// the index item (whole years) and the year item of firstMonth's year (its months).
func opening(buckets []store.SeriesBucket, firstMonth time.Time) (mrr, customers int64) {
	year := firstMonth.Format("2006")
	for _, b := range buckets {
		// Index attributes are m<yyyy>/c<yyyy>, year attributes m<mm>/c<mm>: both
		// before the window when their suffix sorts before the window's.
		limit := year
		if b.SK != keys.SeriesIndexSK {
			limit = firstMonth.Format("01")
		}
		for attr, x := range b.Values {
			if len(attr) < 2 || (attr[0] != attrMRRNet[0] && attr[0] != attrCustomers[0]) || attr[1:] >= limit {
				continue
			}
			if attr[0] == attrMRRNet[0] {
				mrr += x
			} else {
				customers += x
			}
		}
	}
	return mrr, customers
}

// addMonthItem adds a month item's day sums and lost-customer counts to a.
func addMonthItem(a *series.Aggregate, item store.SeriesBucket) error {
	month, err := time.Parse("2006-01", strings.TrimPrefix(item.SK, keys.SeriesMonthPrefix))
	if err != nil {
		return fmt.Errorf("accountseries: bad month item %q", item.SK)
	}
	day := func(dd string) (time.Time, bool) {
		n, err := strconv.Atoi(dd)
		if err != nil || n < 1 || n > 31 {
			return time.Time{}, false
		}
		return month.AddDate(0, 0, n-1), true
	}
	for attr, x := range item.Values {
		if interval, dd, ok := lostOf(attr); ok {
			start := month
			if dd != "" {
				if start, ok = day(dd); !ok {
					continue
				}
			}
			a.Lost[series.PeriodKey{Interval: interval, Start: start.Format(time.DateOnly)}] += x
			continue
		}
		d, ok := day(attr[1:])
		if !ok || len(attr) != 3 {
			continue
		}
		key := d.Format(time.DateOnly)
		t := a.Days[key]
		switch attr[:1] {
		case attrNewBusiness:
			t.NewBusiness += x
		case attrExpansion:
			t.Expansion += x
		case attrContraction:
			t.Contraction += x
		case attrChurn:
			t.Churn += x
		case attrReactivation:
			t.Reactivation += x
		case attrFXImpact:
			t.ExchangeRateImpact += x
		case attrCustomers:
			t.CustomersChange += x
		case attrFirstPaying:
			t.NewCustomers += x
		}
		a.Days[key] = t
	}
	return nil
}

// lostOf recognises a lost-customer attribute: its interval and day-of-month suffix.
func lostOf(attr string) (interval, dd string, ok bool) {
	for iv, prefix := range lostAttr {
		if strings.HasPrefix(attr, prefix) {
			return iv, attr[len(prefix):], true
		}
	}
	return "", "", false
}
