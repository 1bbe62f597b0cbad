// Package stripeworkers holds the Stripe workers: the events worker runs the Stripe
// events queue, whose messages are verified webhook events (applied by the sync, one
// Stripe customer's in the order received), and the backfill worker runs the Stripe
// backfill queue, whose messages are the steps of Stripe backfills (the history read
// through Stripe's API with the connection's key, applied by the same sync). Each lane
// has its own queue and function, so that a step, which holds its invocation for up to
// about 45 s, never keeps webhook events waiting. It builds the sync and the backfill
// runner from the workers' dependencies, so that its two workers are the only worker
// binaries that link stripe-go.
package stripeworkers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/logsafe"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/stripebackfill"
	"github.com/subsight/subsight/shared/stripesync"
	"github.com/subsight/subsight/shared/stripewebhook"
	"github.com/subsight/subsight/shared/workers"
)

// Parts are what the workers run: the webhook's worker step, whose applier is the
// sync, and the backfills' runner.
type Parts struct {
	Events    *stripewebhook.Deps
	Backfills Backfiller
}

// Backfiller runs the steps of Stripe backfills (stripebackfill.Runner).
type Backfiller interface {
	// Step runs one step of the job's backfill; more: it goes on in another step.
	Step(ctx context.Context, job jobs.Message) (more bool, err error)
	// Fail marks the job's backfill failed (its message leaves for the dead-letter queue).
	Fail(ctx context.Context, job jobs.Message, cause error)
}

// NewParts builds the sync, the webhook's worker step and the backfill runner from the
// workers' dependencies.
func NewParts(d *workers.Deps) Parts {
	s := newSync(d)
	return Parts{
		Events: &stripewebhook.Deps{Connections: d.Store, Sealer: d.Secrets, Events: d.Files, Now: d.Now, Applier: s,
			Waiting: func(err error) bool { return errors.Is(err, stripesync.ErrNotYet) }},
		Backfills: &stripebackfill.Runner{Store: d.Store, Sealer: d.Secrets, Now: d.Now, Applier: s, Options: options(d)},
	}
}

// Events runs the Stripe events queue with the sync built from d (RunEvents).
func Events(d *workers.Deps) sqsworker.Handler { return RunEvents(d, NewParts(d).Events) }

// Backfills runs the Stripe backfill queue with the runner built from d (RunBackfills).
func Backfills(d *workers.Deps) sqsworker.Handler { return RunBackfills(d, NewParts(d).Backfills) }

// RunEvents runs the Stripe events queue. An event that fails fails its customer's later
// events of the batch and comes back with them, within seconds when it waits for another
// event (stripesync.ErrNotYet); throttled messages wait for capacity (sqsworker.Backoff);
// one that fails on every receive reaches the dead-letter queue after the queue's
// maxReceiveCount, noted for `admin dlq list`. A deleted account's messages are dropped
// unrun.
func RunEvents(d *workers.Deps, intake *stripewebhook.Deps) sqsworker.Handler {
	b := sqsworker.Backoff{Throttled: d.Throttled, Soon: intake.Waiting, MaxReceives: workers.MaxReceiveCount(),
		Redeliver: d.Redeliver, Now: d.DeadlineClock,
		AccountOf: func(msg events.SQSMessage) string {
			m, _ := stripewebhook.DecodeMessage(msg.Body)
			return m.AccountID
		},
		DeadLetter: func(ctx context.Context, msg events.SQSMessage, cause error) {
			m, _ := stripewebhook.DecodeMessage(msg.Body)
			slog.ErrorContext(ctx, "stripe event dead-lettered", "account_id", m.AccountID, "data_source_uuid", m.DataSourceUUID,
				"event_id", m.EventID, "event_type", m.EventType, "error", logsafe.Text(cause.Error()))
			workers.NoteDeadLetter(ctx, d.Store, m.AccountID, msg, cause, d.Now())
		}}
	return workers.DropGone(d.Store, b.Handler(intake.ApplyBatch))
}

// RunBackfills runs the Stripe backfill queue: each message is one step of a backfill,
// and a batch's steps (of different data sources: a data source's steps follow each
// other in its message group) run side by side. A step that has more to read sends the
// next step to the same queue (workers.Continued). A step that fails comes back from its
// last saved page; on its last receive it marks its backfill failed and is noted for
// `admin dlq list`. A deleted account's steps are dropped unrun.
func RunBackfills(d *workers.Deps, runner Backfiller) sqsworker.Handler {
	b := sqsworker.Backoff{Throttled: d.Throttled, MaxReceives: workers.MaxReceiveCount(), Redeliver: d.Redeliver,
		Now: d.DeadlineClock,
		AccountOf: func(msg events.SQSMessage) string {
			job, _ := jobs.Decode(msg.Body)
			return job.AccountID
		},
		DeadLetter: func(ctx context.Context, msg events.SQSMessage, cause error) {
			job, _ := jobs.Decode(msg.Body)
			workers.NoteDeadLetter(ctx, d.Store, job.AccountID, msg, cause, d.Now())
			if job.Type == jobs.BackfillStripe {
				runner.Fail(ctx, job, cause)
			}
		}}
	return workers.DropGone(d.Store, b.Handler(func(ctx context.Context, msgs []events.SQSMessage) sqsworker.Failures {
		failures := sqsworker.Failures{}
		var mu sync.Mutex
		parallel.For(len(msgs), len(msgs), func(i int) {
			if err := step(ctx, d, runner, msgs[i]); err != nil {
				mu.Lock()
				failures[msgs[i].MessageId] = err
				mu.Unlock()
			}
		})
		return failures
	}))
}

// step runs one step of a backfill and sends the next one when there is more to read.
func step(ctx context.Context, d *workers.Deps, runner Backfiller, msg events.SQSMessage) error {
	job, err := jobs.Decode(msg.Body)
	if err != nil {
		return err
	}
	if job.Type != jobs.BackfillStripe {
		return fmt.Errorf("stripeworkers: %q is not a backfill step", job.Type)
	}
	more, err := runner.Step(ctx, job)
	if err != nil || !more {
		return err
	}
	// The position lives on the progress item, so the next step needs none of its own.
	return workers.Continued(ctx, d.StripeSteps, job, "")
}

// newSync is the worker's sync: it applies events and backfilled customers through the
// import pipeline, asks for its customers' recomputations in the jobs queue (the lane of
// changes made through the API: a live event never waits behind an import), removes a
// customer deleted in Stripe through the data source purge's step, and reads from Stripe
// what an event does not carry (a price, an invoice's further lines, the invoice a
// refunded payment paid) when the connection has an API key.
func newSync(d *workers.Deps) *stripesync.Sync {
	opts := options(d)
	readers := func(ctx context.Context, conn model.StripeConnection) (stripesync.Reader, error) {
		r, err := stripebackfill.Open(ctx, d.Secrets, conn, opts)
		if err != nil || r == nil {
			return nil, err // never a typed nil: no key means no reader
		}
		return r, nil
	}
	return stripesync.New(stripesync.Config{Pipeline: d.Imports, Store: d.Store, Jobs: d.Jobs, Now: d.Now, Purger: d, Readers: readers})
}

// options are how the worker reaches Stripe's API (its base, the rate of a connection's
// reads).
func options(d *workers.Deps) stripebackfill.Options {
	return stripebackfill.Options{APIBase: d.StripeAPIBase, Rate: d.StripeBackfillRate}
}
