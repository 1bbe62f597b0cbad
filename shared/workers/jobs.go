// Package workers holds the SQS worker handlers.
package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
)

// Jobs runs the jobs queue.
func Jobs(d *app.Deps) sqsworker.Handler {
	return sqsworker.FIFO(func(ctx context.Context, msg events.SQSMessage) error {
		job, err := jobs.Decode(msg.Body)
		if err != nil {
			return err
		}
		switch job.Type {
		case jobs.PurgeDataSource:
			return purgeDataSource(ctx, d, job)
		default:
			return fmt.Errorf("jobs: unknown job type %q", job.Type)
		}
	})
}

// purgeDataSource deletes everything stored under the data source's partition, then
// the data source itself. Each step is idempotent, so a redelivery finishes the work.
func purgeDataSource(ctx context.Context, d *app.Deps, job jobs.Message) error {
	ds, err := d.Store.GetDataSource(ctx, job.AccountID, job.DataSourceUUID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // already purged
	}
	if err != nil {
		return err
	}
	n, err := d.Store.DeletePartition(ctx, keys.DataSourcePartition(job.AccountID, ds.UUID))
	if err != nil {
		return err
	}
	if err := d.Store.DeleteDataSource(ctx, job.AccountID, ds.UUID); err != nil {
		return err
	}
	slog.InfoContext(ctx, "data source purged", "account_id", job.AccountID, "data_source_uuid", ds.UUID, "items", n)
	return nil
}
