package accountseries

import (
	"context"
	"errors"
	"fmt"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/store"
)

// SeedCustomer is one customer for Seed.
type SeedCustomer struct {
	Result *engine.Result
	Attrs  CustomerAttrs
}

// ErrNotEmpty is Seed's refusal of an account that already has series.
var ErrNotEmpty = errors.New("accountseries: the account already has series")

// Seed stores many customers into an account that has no series yet, leaving exactly
// what Apply would leave for each of them, but summing the buckets in memory and
// writing each bucket item once with BatchWriteItem (no transactions). It is for
// backfills and benchmarks, never concurrently with Apply on the same account; an
// account whose "all" index item exists is refused with ErrNotEmpty.
func (s *Series) Seed(ctx context.Context, accountID string, customers []SeedCustomer) error {
	exists, err := s.store.SeriesBucketExists(ctx, accountID, segmentAll, keys.SeriesIndexSK)
	if err != nil {
		return err
	}
	if exists {
		return ErrNotEmpty
	}
	acc, err := s.store.GetAccount(ctx, accountID)
	if err != nil {
		return fmt.Errorf("accountseries: read account: %w", err)
	}
	cal := Calendar(acc)
	total := Cells{}
	records := map[string]store.SeriesRecord{}
	var acts []store.Activity
	for _, c := range customers {
		sc := seriesCustomer(c.Result, c.Attrs)
		customerActs := activitiesOf(accountID, c.Attrs, sc.Movements)
		cells := customerCells(sc, cal)
		for k, v := range cells {
			total.add(k, v)
		}
		st := successor(store.SeriesRecord{Cells: Cells{}}, versionOf(cal, c.Attrs, sc.Movements, customerActs, sc.ExchangeRateImpacts...),
			cells, customerActs)
		st.Pending, st.ActsPrev, st.ActsDone = nil, nil, true
		records[c.Attrs.UUID] = st
		for _, a := range customerActs {
			acts = append(acts, a.Activity)
		}
	}
	return s.store.PutSeries(ctx, accountID, records, acts, total.updates())
}
