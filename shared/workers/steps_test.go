package workers_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// TestPurgeInSteps: a purge and an emptying of data sources on a slow worker (every
// look at the clock finds 20 s gone, so an invocation of 60 s with its margin of 15 s
// starts two pieces of work) take several steps, each one message of its own, and
// finish what one invocation would have done: the purge deletes the source's customers
// and the source; the emptying that keeps the customers removes the source's records
// from each and keeps them and the source; also when every step is delivered twice.
func TestPurgeInSteps(t *testing.T) {
	empty := func(accountID, dsUUID string) jobs.Message { return jobs.Empty(accountID, dsUUID, true, "request-1") }
	tests := []struct {
		name   string
		job    func(accountID, dsUUID string) jobs.Message
		kept   bool // the customers and the source stay
		repeat bool // every step delivered twice
	}{
		{name: "purge", job: jobs.Purge},
		{name: "purge, every step repeated", job: jobs.Purge, repeat: true},
		{name: "empty, keeping the customers", kept: true, job: empty},
		{name: "empty, every step repeated", kept: true, job: empty, repeat: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testenv.New(t)
			ctx := context.Background()
			acc := env.NewAccount(t, "Acme")
			ds := env.NewDataSource(t, acc.ID, "Billing")
			var customers []model.Customer
			for _, xid := range []string{"a", "b", "c", "d", "e"} {
				id, err := env.Deps.Store.NextCustomerID(ctx, acc.ID)
				if err != nil {
					t.Fatal(err)
				}
				c := model.Customer{AccountID: acc.ID, UUID: ids.New(ids.Customer), ID: id, DataSourceUUID: ds.UUID,
					DataSourceUUIDs: []string{ds.UUID}, ExternalID: xid, ExternalIDs: []string{xid}, Name: xid,
					Status: model.StatusNewLead, CreatedAt: env.Deps.Now()}
				if err := env.Deps.Store.CreateCustomer(ctx, c); err != nil {
					t.Fatal(err)
				}
				customers = append(customers, c)
			}
			if err := env.Workers.Jobs.Send(ctx, tc.job(acc.ID, ds.UUID)); err != nil {
				t.Fatal(err)
			}
			clock := &testenv.SlowClock{Step: 20 * time.Second, Timeout: time.Minute}
			w := env.Deps.Workers()
			w.DeadlineClock = clock.Now
			worker := clock.Invoke(workers.Jobs(w))
			if tc.repeat {
				worker = twice(worker)
			}
			env.DrainJobs(t, worker)

			if clock.Invocations() < 3 {
				t.Errorf("%d invocations, want the job to take several steps", clock.Invocations())
			}
			for _, c := range customers {
				_, err := env.Deps.Store.GetCustomer(ctx, acc.ID, c.UUID)
				if gone := errors.Is(err, store.ErrNotFound); gone == tc.kept || (err != nil && !gone) {
					t.Errorf("customer %s: %v, want kept %v", c.ExternalID, err, tc.kept)
				}
			}
			_, err := env.Deps.Store.GetDataSource(ctx, acc.ID, ds.UUID)
			if gone := errors.Is(err, store.ErrNotFound); gone == tc.kept || (err != nil && !gone) {
				t.Errorf("data source: %v, want kept %v", err, tc.kept)
			}
		})
	}
}

// twice delivers every batch twice, as SQS may: a step repeated must do nothing more.
func twice(h sqsworker.Handler) sqsworker.Handler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		if resp, err := h(ctx, ev); err != nil || len(resp.BatchItemFailures) > 0 {
			return resp, err
		}
		return h(ctx, ev)
	}
}
