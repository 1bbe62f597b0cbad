// Package workers holds the SQS worker handlers and the scheduled functions.
package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/logsafe"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/recompute"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
)

// Storage is the part of the store the workers use: what the recomputation uses,
// the data sources a purge removes (with their Stripe connections), and the account
// series.
type Storage interface {
	recompute.Storage
	store.DataSources
	store.StripeConnections
	// The Stripe worker's (package stripeworkers): the sync's state and the backfills,
	// and the custom attributes a Stripe customer's metadata sets.
	store.StripeSync
	store.StripeBackfills
	store.AttributeDefinitions
	store.SeriesStore
	store.Activities
	store.ActivitiesExports
	store.DeadLetters
}

// Files keeps the activities exports' files (on S3: blobs.Store).
type Files interface {
	PutFile(ctx context.Context, key, contentType string, body []byte) error
	// Get reads a file back (the parts of an export written in steps, a Stripe event).
	Get(ctx context.Context, key string) ([]byte, error)
	// Put writes an object (the Stripe worker's dependencies are the webhook's).
	Put(ctx context.Context, key string, body []byte) error
}

// Deps are what the workers use, built once per process by the wiring.
type Deps struct {
	Store Storage
	// Jobs is the jobs queue (changes made through the API, account-level jobs);
	// Recomputes the bulk lane of recomputations; Folds the series folds.
	Jobs       jobs.Sender
	Recomputes jobs.Sender
	Folds      jobs.Sender
	Imports    *imports.Pipeline
	// Files are the activities exports' files.
	Files Files
	// Secrets open the data sources' secrets (on KMS: kmssealer.Sealer).
	Secrets secrets.Sealer
	// Redeliver brings throttled messages back within seconds (nil: after the queues'
	// visibility timeout).
	Redeliver sqsworker.Redeliverer
	// Throttled tells a throttle from other failures (nil: every failure is final for
	// its receive).
	Throttled func(error) bool
	Now       func() time.Time
	// ExportPageSize is how many activities one read of an export takes (0: 200);
	// tests make a small export take several pages.
	ExportPageSize int
	// SourcePageSize is how many customers one piece of a data source's recomputation
	// lists (0: 100); tests make a small source take several pages.
	SourcePageSize int
	// DeadlineClock measures the invocation's deadline (sqsworker.MayStart; nil:
	// time.Now): tests make time pass with it.
	DeadlineClock func() time.Time
	// StripeSteps sends the next steps of Stripe backfills to the Stripe backfill queue;
	// StripeAPIBase and StripeBackfillRate are how the Stripe worker reaches Stripe's API
	// (package stripeworkers).
	StripeSteps        jobs.Sender
	StripeAPIBase      string
	StripeBackfillRate float64

	recomputeOnce sync.Once
	recomputer    *recompute.Recomputer
	series        *accountseries.Series
	// batches counts the bulk lane's batches, from a random start: each adds to the next
	// bulk shard, so that the function's instances together fill the shards about evenly.
	batches atomic.Int64
}

// Recomputer recomputes customers and keeps the account series, built on first use
// (by the jobs worker only, so that the other workers do not link it).
func (d *Deps) Recomputer() *recompute.Recomputer {
	d.recomputeOnce.Do(func() {
		d.series = accountseries.New(d.Store.Series())
		d.recomputer = recompute.New(d.Store, d.series, d.Now)
		d.batches.Store(rand.Int64N(keys.SeriesShards))
	})
	return d.recomputer
}

// Jobs runs the jobs queues: the jobs queue, the bulk lane of recomputations and the
// series folds (one handler, one event source mapping each). A batch is run in rounds
// (sqsworker.Rounds), as the import worker does: round k holds the k-th message of every
// message group of the batch, so one customer's (or account's) jobs run in order while the
// recomputations of a round run together (recompute.Recomputer.Customers: shared reads,
// one series write). The first failure of a group fails its later messages too; the
// other groups go on. Messages without a group (tests) are one group. Throttled jobs
// wait for capacity and come back soon (sqsworker.Backoff); an activities export is
// marked failed on its last receive. A deleted account's jobs are dropped unrun (DropGone).
func Jobs(d *Deps) sqsworker.Handler {
	b := sqsworker.Backoff{Throttled: d.Throttled, MaxReceives: MaxReceiveCount(), Redeliver: d.Redeliver, Now: d.DeadlineClock,
		AccountOf: func(msg events.SQSMessage) string {
			job, _ := jobs.Decode(msg.Body)
			return job.AccountID
		},
		DeadLetter: func(ctx context.Context, msg events.SQSMessage, cause error) {
			job, err := jobs.Decode(msg.Body)
			NoteDeadLetter(ctx, d.Store, job.AccountID, msg, cause, d.Now())
			if err == nil && job.Type == jobs.ExportActivities {
				failExport(ctx, d, job)
			}
		}}
	return DropGone(d.Store, b.Handler(func(ctx context.Context, records []events.SQSMessage) sqsworker.Failures {
		failures := sqsworker.Failures{}
		groups := sqsworker.Groups(records)
		for gi, g := range groups {
			handled, err := fold(ctx, d, g)
			if err != nil {
				failures[g[0].MessageId] = err // every fold of the group is retried
			}
			if handled {
				groups[gi] = nil
			}
		}
		sqsworker.Rounds(ctx, groups, failures, func(ctx context.Context, msgs []events.SQSMessage) []error {
			return runRound(ctx, d, msgs)
		})
		return failures
	}))
}

// fold runs a group of fold jobs (an account's) as one fold: folds may run in any
// order and again, so the group's folds of a batch take one read of their shards and
// one transaction on the read copy's items, not one each. A group of other jobs is left
// to the rounds (handled false).
func fold(ctx context.Context, d *Deps, group []events.SQSMessage) (handled bool, err error) {
	var parts []store.SeriesShardPart
	account := ""
	for _, msg := range group {
		job, err := jobs.Decode(msg.Body)
		if err != nil || job.Type != jobs.FoldSeries || (account != "" && job.AccountID != account) {
			return false, nil
		}
		account = job.AccountID
		parts = append(parts, store.SeriesShardPart{Shard: job.Shard, Segments: job.Segments})
	}
	if account == "" {
		return false, nil
	}
	if !sqsworker.MayStart(ctx) {
		return true, sqsworker.ErrNotStarted
	}
	d.Recomputer()
	if err := d.series.Fold(ctx, account, parts); err != nil {
		slog.ErrorContext(ctx, "series fold failed", "account_id", account, "folds", len(group), "error", logsafe.Text(err.Error()))
		return true, err
	}
	return true, nil
}

// runRound runs messages of distinct groups: the recomputations of each lane as one
// batch, every other job on its own, all at once. One error per message.
func runRound(ctx context.Context, d *Deps, msgs []events.SQSMessage) []error {
	errs := make([]error, len(msgs))
	decoded := make([]jobs.Message, len(msgs))
	lanes := map[string][]int{}
	var others []int
	for i, msg := range msgs {
		job, err := jobs.Decode(msg.Body)
		switch {
		case err != nil:
			errs[i] = err
		case job.Type == jobs.RecomputeCustomer:
			lanes[job.Lane] = append(lanes[job.Lane], i)
		default:
			others = append(others, i)
		}
		decoded[i] = job
	}
	var wg sync.WaitGroup
	for lane, idx := range lanes {
		wg.Go(func() {
			batchErrs := recomputeBatch(ctx, d, lane, msgs, decoded, idx)
			for k, i := range idx {
				errs[i] = batchErrs[k]
			}
		})
	}
	wg.Go(func() {
		parallel.For(len(others), len(others), func(k int) {
			i := others[k]
			errs[i] = runJob(ctx, d, decoded[i])
		})
	})
	wg.Wait()
	return errs
}

// runJob runs one job that is not a recomputation.
func runJob(ctx context.Context, d *Deps, job jobs.Message) error {
	switch job.Type {
	case jobs.PurgeDataSource:
		return continued(ctx, d, job, purgeDataSource(ctx, d, job))
	case jobs.EmptyDataSource:
		return continued(ctx, d, job, emptyDataSource(ctx, d, job))
	case jobs.RecomputeDataSourceCustomers:
		return continued(ctx, d, job, recomputeDataSource(ctx, d, job))
	case jobs.MergeCustomers:
		return mergeCustomers(ctx, d, job)
	case jobs.UnmergeCustomer:
		return d.Recomputer().Unmerges(ctx, job.AccountID, job.CustomerUUID)
	case jobs.ExportActivities:
		return continued(ctx, d, job, exportActivities(ctx, d, job))
	default:
		return fmt.Errorf("jobs: unknown job type %q", job.Type)
	}
}

// continued sends the next step of a job whose step ran out of time (moreSteps) to
// the jobs queue (Continued), and counts this one done. Another outcome is returned as
// it is.
func continued(ctx context.Context, d *Deps, job jobs.Message, err error) error {
	var more *moreSteps
	if !errors.As(err, &more) {
		return err
	}
	return Continued(ctx, d.Jobs, job, more.resume)
}

// Continued sends the step that carries on job from resume (jobs.Continue) to q, the
// job's own queue (the jobs queue for purges and exports, the Stripe backfill queue for
// backfills), as a message of its own: a long job never runs out of receives, and never
// holds one invocation past its deadline. The next step joins the end of the job's
// message group, which only holds the same data source's (or export's) jobs, all of
// them safe in any order. When the send fails, the step that called it fails too and
// is repeated from its own position: its work is done again as no-ops.
func Continued(ctx context.Context, q jobs.Sender, job jobs.Message, resume string) error {
	next := jobs.Continue(job, resume)
	if err := q.Send(ctx, next); err != nil {
		return fmt.Errorf("jobs: send the next step: %w", err)
	}
	slog.InfoContext(ctx, "job continues in another step", "account_id", job.AccountID, "data_source_uuid", job.DataSourceUUID,
		"type", job.Type, "step", next.Step)
	return nil
}

// recomputeBatch recomputes the customers of the messages idx together: the jobs
// queue's into the series' read copy; the bulk lane's into one bulk shard, then asks
// for the fold of what it wrote there (one job per account).
func recomputeBatch(ctx context.Context, d *Deps, lane string, msgs []events.SQSMessage, decoded []jobs.Message, idx []int) []error {
	reqs := make([]recompute.Request, len(idx))
	for k, i := range idx {
		reqs[k] = recompute.Request{AccountID: decoded[i].AccountID, CustomerUUID: decoded[i].CustomerUUID}
	}
	shard := 0
	if lane == jobs.Bulk {
		shard = keys.BulkSeriesShard(int(d.batches.Add(1)))
	}
	_, folds, errs := d.Recomputer().Customers(ctx, shard, reqs)
	var fold []jobs.Message
	for accountID, parts := range folds {
		for _, p := range parts {
			fold = append(fold, jobs.Fold(accountID, p.Shard, p.Segments, msgs[idx[0]].MessageId))
		}
	}
	if len(fold) == 0 {
		return errs
	}
	if err := d.Folds.SendBatch(ctx, fold); err != nil {
		// The recomputations are written; their redelivery finds them so and asks again.
		for k := range errs {
			if errs[k] == nil {
				errs[k] = fmt.Errorf("jobs: ask for the series fold: %w", err)
			}
		}
	}
	return errs
}
