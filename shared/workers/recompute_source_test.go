package workers_test

import (
	"context"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/workers"
)

// TestRecomputeDataSourceInSteps: the recomputation of a data source's customers,
// a customer a page on a slow worker (two pages a step), queues
// one recompute job per customer of the source in the bulk lane, none for another
// source's customer; a step delivered twice queues nothing more; a source without
// customers queues nothing.
func TestRecomputeDataSourceInSteps(t *testing.T) {
	tests := []struct {
		name      string
		customers int
		repeat    bool
		minSteps  int
	}{
		{name: "five customers", customers: 5, minSteps: 3},
		{name: "every step delivered twice", customers: 5, repeat: true, minSteps: 3},
		{name: "no customers", customers: 0, minSteps: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testenv.New(t)
			ctx := context.Background()
			acc := env.NewAccount(t, "Acme")
			ds, other := env.NewDataSource(t, acc.ID, "Stripe"), env.NewDataSource(t, acc.ID, "Other")
			newCustomer := func(dsUUID, xid string) string { return env.NewCustomer(t, acc.ID, dsUUID, xid).UUID }

			want := map[string]bool{}
			for i := range tc.customers {
				want[newCustomer(ds.UUID, string(rune('a'+i)))] = true
			}
			newCustomer(other.UUID, "elsewhere")
			job := jobs.RecomputeDataSource(acc.ID, ds.UUID, "2026-12-07T01:00:00Z")
			if err := env.Workers.Jobs.Send(ctx, job); err != nil {
				t.Fatal(err)
			}
			clock := &testenv.SlowClock{Step: 20 * time.Second, Timeout: time.Minute}
			w := env.Deps.Workers()
			w.DeadlineClock, w.SourcePageSize = clock.Now, 1
			worker := clock.Invoke(workers.Jobs(w))
			if tc.repeat {
				worker = twice(worker)
			}
			// The jobs queue only: the recompute jobs stay in their queue to be read.
			testenv.Drain(t, env.Deps, env.JobsQueueURL, worker)

			if clock.Invocations() < tc.minSteps {
				t.Errorf("%d invocations, want at least %d steps", clock.Invocations(), tc.minSteps)
			}
			got := map[string]int{}
			for _, m := range env.ReceiveJobsFrom(t, env.RecomputeQueueURL) {
				if m.Type != jobs.RecomputeCustomer || m.Lane != jobs.Bulk || m.AccountID != acc.ID {
					t.Errorf("unexpected job %+v", m)
				}
				got[m.CustomerUUID]++
			}
			for uuid := range want {
				if got[uuid] != 1 {
					t.Errorf("customer %s: %d recompute jobs, want 1", uuid, got[uuid])
				}
			}
			for uuid, n := range got {
				if !want[uuid] {
					t.Errorf("customer %s of another source: %d recompute jobs", uuid, n)
				}
			}
		})
	}
}
