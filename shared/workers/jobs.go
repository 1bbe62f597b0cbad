// Package workers holds the SQS worker handlers and the scheduled functions.
package workers

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/recompute"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
)

// Storage is the part of the store the workers use: what the recomputation uses,
// the data sources a purge removes, and the account series.
type Storage interface {
	recompute.Storage
	store.DataSources
	accountseries.SeriesStore
	store.Activities
	store.ActivitiesExports
}

// Files keeps the activities exports' files (on S3: blobs.Store).
type Files interface {
	PutFile(ctx context.Context, key, contentType string, body []byte) error
}

// Deps are what the workers use, built once per process by the wiring.
type Deps struct {
	Store   Storage
	Jobs    jobs.Sender
	Imports *imports.Pipeline
	// Files are the activities exports' files.
	Files Files
	Now   func() time.Time

	recomputeOnce sync.Once
	recomputer    *recompute.Recomputer
}

// Recomputer recomputes customers and keeps the account series, built on first use
// (by the jobs worker only, so that the other workers do not link it).
func (d *Deps) Recomputer() *recompute.Recomputer {
	d.recomputeOnce.Do(func() {
		d.recomputer = recompute.New(d.Store, accountseries.New(d.Store.Series()), d.Now)
	})
	return d.recomputer
}

// Jobs runs the jobs queue.
func Jobs(d *Deps) sqsworker.Handler {
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
		case jobs.UnmergeCustomer:
			return d.Recomputer().Unmerges(ctx, job.AccountID, job.CustomerUUID)
		case jobs.ExportActivities:
			return exportActivities(ctx, d, job, msg)
		default:
			return fmt.Errorf("jobs: unknown job type %q", job.Type)
		}
	})
}
