package workers

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/jobs"
)

// wakeLookBack is how far back the sweeper looks for wake-ups it has not seen: a
// sweeper that was down for less than this misses nothing.
const wakeLookBack = 24 * time.Hour

// MetricsWakeSweeper returns the handler of a scheduled function (EventBridge, every
// few minutes): it enqueues, in the bulk lane, a recomputation for every customer whose
// result changes by itself by now (a service period ends, a scheduled cancellation takes effect, an
// auto-churn falls due). SQS FIFO queues have no per-message delay, hence the sweep.
// The wake item stays until the recomputation moves or removes it, so a failed job is
// sent again by a later sweep.
func MetricsWakeSweeper(d *Deps) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		_, err := SweepMetricsWakes(ctx, d)
		return err
	}
}

// SweepMetricsWakes enqueues the due recomputations and reports how many.
func SweepMetricsWakes(ctx context.Context, d *Deps) (int, error) {
	now := d.Now()
	due, err := d.Store.DueMetricsWakes(ctx, now.Add(-wakeLookBack), now)
	if err != nil {
		return 0, err
	}
	for _, w := range due {
		// The due time as nonce: a repeat within SQS's deduplication window is dropped,
		// a new wake-up of the same customer is not.
		if err := d.Recomputes.Send(ctx, jobs.Recompute(w.AccountID, w.CustomerUUID, "wake:"+strconv.FormatInt(w.Due.Unix(), 10))); err != nil {
			return 0, err
		}
	}
	if len(due) > 0 {
		slog.InfoContext(ctx, "metrics wake-ups enqueued", "count", len(due))
	}
	return len(due), nil
}

// mergeCustomers handles jobs.MergeCustomers.
func mergeCustomers(ctx context.Context, d *Deps, job jobs.Message) error {
	return d.Recomputer().Merges(ctx, job.AccountID, job.CustomerUUID)
}

// CheckSeries compares the account's stored series with what its customers' results
// add up to (recompute.Recomputer.CheckSeries).
func (d *Deps) CheckSeries(ctx context.Context, accountID string) (accountseries.Verification, error) {
	rc := d.Recomputer()
	return rc.CheckSeries(ctx, d.series, accountID, false)
}
