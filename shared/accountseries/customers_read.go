package accountseries

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/store"
)

// LoadCustomers answers a filter that selects customers by attribute: the series of
// exactly those customers, summed from the contributions their records hold (the same
// numbers the account's buckets are the sums of), restricted to the plans planUUIDs
// when given (their plan and combination segments, as FilterSegments reads them). The
// result is what Load would read in an account holding only these customers.
// Records are read 100 per BatchGetItem; a customer without a record adds nothing.
func (s *Series) LoadCustomers(ctx context.Context, accountID string, customerUUIDs, planUUIDs []string,
	from, to time.Time) (*series.Aggregate, error) {
	cells, err := s.store.SeriesCells(ctx, accountID, customerUUIDs)
	if err != nil {
		return nil, err
	}
	firstMonth := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
	pointSKs := []string{keys.SeriesIndexSK, keys.SeriesYearSK(firstMonth.Format("2006"))}
	lo, hi := keys.SeriesMonthSK(firstMonth.Format("2006-01")), keys.SeriesMonthSK(to.Format("2006-01"))
	items := map[string]map[string]int64{}
	for _, c := range cells {
		for k, v := range c {
			seg, sk, attr := splitCell(k)
			if !segmentSelected(seg, planUUIDs) || !(slices.Contains(pointSKs, sk) || sk >= lo && sk <= hi) {
				continue
			}
			if items[sk] == nil {
				items[sk] = map[string]int64{}
			}
			items[sk][attr] += v
		}
	}
	var points, months []store.SeriesBucket
	for sk, values := range items {
		if slices.Contains(pointSKs, sk) {
			points = append(points, store.SeriesBucket{SK: sk, Values: values})
		} else {
			months = append(months, store.SeriesBucket{SK: sk, Values: values})
		}
	}
	return windowAggregate(points, months, firstMonth)
}

// segmentSelected reports whether a customer's segment belongs to the series of the
// plans (every plan when there are none): "all" without plans; with plans, a plan
// segment of one of them and a combination segment of only them. Country segments are
// never read: the caller selects the customers of a country itself.
func segmentSelected(segment string, planUUIDs []string) bool {
	if len(planUUIDs) == 0 {
		return segment == segmentAll
	}
	if p, ok := strings.CutPrefix(segment, planSegment("")); ok {
		return slices.Contains(planUUIDs, p)
	}
	combo, ok := strings.CutPrefix(segment, combosSegment(nil))
	if !ok {
		return false
	}
	for _, p := range strings.Split(combo, "+") {
		if !slices.Contains(planUUIDs, p) {
			return false
		}
	}
	return true
}
