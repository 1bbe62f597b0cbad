package main

import (
	"context"
	"fmt"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/recompute"
)

// checkSeries recomputes every customer of the account from its records (writing
// nothing) and compares the sum of their contributions with the stored account series
// (recompute.Recomputer.CheckSeries). It prints what it compared and every difference,
// and fails when there is one. Run it on a quiet account: a recomputation in flight
// shows as a difference. With -fold it first folds every bulk shard of the series into
// the read copy (docs/data-model.md, "Write shards").
func checkSeries(ctx context.Context, e env, args []string) error {
	fs := newFlags("check-series")
	account := fs.String("account", "", "account id")
	fold := fs.Bool("fold", false, "fold every bulk shard of the account series into the read copy first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := requireAccount(ctx, e, *account); err != nil {
		return err
	}
	series := accountseries.New(e.store.Series())
	rc := recompute.New(e.store, series, func() time.Time { return time.Now().UTC() })
	v, err := rc.CheckSeries(ctx, series, *account, *fold)
	if err != nil {
		return err
	}
	diffs := make([]string, len(v.Differences))
	for i, d := range v.Differences {
		diffs[i] = d.String()
	}
	if err := printJSON(e.stdout, map[string]any{"ok": v.OK(), "customers": v.Customers, "segments": v.Segments,
		"numbers_compared": v.Numbers, "numbers_not_folded": v.Unfolded, "series_mrr": v.SeriesMRR, "customers_mrr": v.CustomersMRR,
		"series_paying_customers": v.SeriesPaying, "paying_customers": v.CustomersPaying, "differences": diffs}); err != nil {
		return err
	}
	if !v.OK() {
		return fmt.Errorf("the stored series differ from the customers' results (%d numbers differ)", len(v.Differences))
	}
	return nil
}
