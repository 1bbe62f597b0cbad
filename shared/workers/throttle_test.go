package workers_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/subsight/subsight/infra/testkit/faults"
	"github.com/subsight/subsight/infra/testkit/sqsfake"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// TestJobsWaitForAThrottledPartition: a purge whose data source partition is hot
// (every request on it throttled, faults.Injector.Hot) waits for capacity within the
// invocation and is applied once the partition cools; if it stays hot until near the
// deadline, the job is reported failed and asked back within seconds, and nothing is
// purged.
func TestJobsWaitForAThrottledPartition(t *testing.T) {
	tests := []struct {
		name        string
		hotFor      time.Duration
		deadline    time.Duration // of the invocation
		failed      []string
		redelivered []string
	}{
		{name: "the partition cools within the invocation", hotFor: time.Second, deadline: 40 * time.Second},
		{name: "still hot near the deadline", hotFor: 10 * time.Minute, deadline: 17 * time.Second,
			failed: []string{"m1"}, redelivered: []string{"m1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testenv.New(t)
			ctx := context.Background()
			acc := env.NewAccount(t, "Acme")
			ds := env.NewDataSource(t, acc.ID, "Billing")
			inject := faults.New(0, 1)
			cfg := env.Deps.Clients.Config.Copy()
			inject.Attach(&cfg)
			// The SDK's retries with a short back-off: the waiting is the worker's.
			cfg.Retryer = func() aws.Retryer {
				return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxBackoff = 10 * time.Millisecond })
			}
			w := env.With(dynamodb.NewFromConfig(cfg, awsclients.RetryConflicts), nil).Workers()
			early := &sqsfake.Redeliveries{}
			w.Redeliver = early
			hot := keys.DataSourcePartition(acc.ID, ds.UUID)
			inject.Hot(func(pk string) bool { return pk == hot }, tc.hotFor)
			inject.Start()

			ictx, cancel := context.WithTimeout(ctx, tc.deadline)
			defer cancel()
			msg := sqsMessage("m1", jobs.Purge(acc.ID, ds.UUID))
			msg.Attributes = map[string]string{"ApproximateReceiveCount": "1"}
			resp, err := workers.Jobs(w)(ictx, events.SQSEvent{Records: []events.SQSMessage{msg}})
			inject.Stop()
			if err != nil {
				t.Fatal(err)
			}
			if inject.Injected()[faults.HotPartition] == 0 {
				t.Fatal("the purge never met the hot partition")
			}
			var failed []string
			for _, f := range resp.BatchItemFailures {
				failed = append(failed, f.ItemIdentifier)
			}
			if !slices.Equal(failed, tc.failed) || !slices.Equal(early.IDs, tc.redelivered) {
				t.Fatalf("failed %v, redelivered early %v; want %v, %v", failed, early.IDs, tc.failed, tc.redelivered)
			}
			if tc.redelivered != nil && early.Delay > 10*time.Second {
				t.Errorf("redelivery after %v, want a few seconds", early.Delay)
			}
			_, err = env.Deps.Store.GetDataSource(ctx, acc.ID, ds.UUID)
			if purged := errors.Is(err, store.ErrNotFound); purged != (tc.failed == nil) {
				t.Errorf("data source purged: %v (%v), want %v", purged, err, tc.failed == nil)
			}
		})
	}
}
