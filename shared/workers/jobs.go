// Package workers holds the SQS worker handlers.
package workers

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/sqsworker"
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
		case jobs.RecomputeCustomer:
			return recomputeCustomer(ctx, d, job)
		case jobs.MergeCustomers:
			return mergeCustomers(ctx, d, job)
		default:
			return fmt.Errorf("jobs: unknown job type %q", job.Type)
		}
	})
}
