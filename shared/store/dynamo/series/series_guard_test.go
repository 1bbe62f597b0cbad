package series_test

import (
	"context"
	"slices"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// TestSeriesGuards: each kind of guard goes into the transaction of the customer's
// series record, a failed one reported as that record's conflict; a guard of a kind the
// adapter does not know is an error, never skipped.
func TestSeriesGuards(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := model.NewAccountID()
	stored := store.MetricsState{Hash: "h1", Data: []byte("state")}
	if err := env.Deps.Store.PutMetricsState(ctx, acc, "cus-guarded", store.MetricsState{}, stored); err != nil {
		t.Fatal(err)
	}
	commit, err := env.Deps.Store.MetricsStateCommit(ctx, acc, "cus-guarded", stored, store.MetricsState{Hash: "h2", Data: []byte("next")})
	if err != nil {
		t.Fatal(err)
	}
	stale, err := env.Deps.Store.MetricsStateCommit(ctx, acc, "cus-guarded", store.MetricsState{Hash: "old"}, store.MetricsState{Hash: "h3"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		guard     store.SeriesGuard
		conflicts []int
		fails     bool
	}{
		{name: "no guard", guard: store.SeriesGuard{}},
		{name: "check of the stored state", guard: store.SeriesStateCheck(stored)},
		{name: "check of another state", guard: store.SeriesStateCheck(store.MetricsState{Hash: "other"}), conflicts: []int{0}},
		{name: "commit over a stale state", guard: stale, conflicts: []int{0}},
		{name: "commit over the stored state", guard: commit},
		{name: "unknown kind", guard: store.SeriesGuard{Kind: 99}, fails: true},
	}
	series := env.Deps.Store.Series()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := store.SeriesRecord{Exists: true, Version: tt.name, Cells: map[string]int64{}}
			old, err := series.GetSeriesRecord(ctx, acc, "cus-guarded")
			if err != nil {
				t.Fatal(err)
			}
			conflicts, err := series.WriteSeriesBatch(ctx, acc, 0,
				[]store.SeriesRecordWrite{{CustomerUUID: "cus-guarded", Old: old, Next: &next, Guard: tt.guard}}, nil)
			if (err != nil) != tt.fails || !slices.Equal(conflicts, tt.conflicts) {
				t.Fatalf("conflicts %v, error %v; want conflicts %v, failure %v", conflicts, err, tt.conflicts, tt.fails)
			}
			got, err := series.GetSeriesRecord(ctx, acc, "cus-guarded")
			if err != nil {
				t.Fatal(err)
			}
			if written := got.Version == tt.name; written != (tt.conflicts == nil && !tt.fails) {
				t.Errorf("record written: %v", written)
			}
		})
	}
	st, err := env.Deps.Store.GetMetricsState(ctx, acc, "cus-guarded")
	if err != nil || st.Hash != "h2" {
		t.Errorf("state after the commit: %q, %v; want h2", st.Hash, err)
	}
}
