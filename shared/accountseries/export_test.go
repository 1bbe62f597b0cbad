package accountseries

import (
	"context"
	"maps"

	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/store"
)

// The fixtures and internals that the tests which need the table (package
// accountseries_test: the store imports this package) share with the others.

// Customer is a test customer: attributes and real movements.
type Customer = customer

var (
	Portfolio          = portfolio
	MultiPlanPortfolio = multiPlanPortfolio
	Mv                 = mv
	SubMove            = subMove
	At                 = at
	UTC                = utc
)

// FirstRecord is the record Apply writes for a customer the series have not seen,
// every addition pending, and the additions one bucket item at a time.
func FirstRecord(accountID string, c Customer) (store.SeriesRecord, []store.SeriesBucketAdd) {
	ms := c.Movements
	acts := activitiesOf(accountID, c.Attrs, ms)
	cells := customerCells(series.Customer{UUID: c.Attrs.UUID, Country: c.Attrs.Country, Movements: ms}, utc)
	return successor(store.SeriesRecord{Cells: Cells{}}, versionOf(utc, c.Attrs, ms, acts), cells, acts), cells.updates()
}

// Combinations reads the combination registry: plans joined by "+" -> customers per
// registry attribute.
func (s *Series) Combinations(ctx context.Context, accountID string) (map[string]map[string]int64, error) {
	combos, err := s.combinations(ctx, accountID)
	out := map[string]map[string]int64{}
	for _, c := range combos {
		out[comboName(c.plans)] = maps.Clone(c.customers)
	}
	return out, err
}
