// Package stripeworkers is the Stripe worker: it runs the Stripe events queue, whose
// messages are verified webhook events (applied by the sync, one Stripe customer's in
// the order received) and the steps of Stripe backfills (the history read through
// Stripe's API with the connection's key, applied by the same sync). It builds the sync
// and the backfill runner from the workers' dependencies, so that it is the only worker
// binary that links stripe-go.
package stripeworkers

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/logsafe"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/stripebackfill"
	"github.com/subsight/subsight/shared/stripesync"
	"github.com/subsight/subsight/shared/stripewebhook"
	"github.com/subsight/subsight/shared/workers"
)

// Parts are what the worker runs: the webhook's worker step, whose applier is the
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

// Events runs the Stripe events queue with the parts built from d (Run).
func Events(d *workers.Deps) sqsworker.Handler { return Run(d, NewParts(d)) }

// Run runs the Stripe events queue. An event that fails fails its customer's later
// events of the batch and comes back with them, within seconds when it waits for another
// event (stripesync.ErrNotYet); throttled messages wait for capacity (sqsworker.Backoff);
// one that fails on every receive reaches the dead-letter queue after the queue's
// maxReceiveCount, noted for `admin dlq list` (a backfill's step then marks its backfill
// failed). A backfill's step that has more to read sends the next step to the same queue,
// in the data source's message group. A deleted account's messages are dropped unrun.
func Run(d *workers.Deps, p Parts) sqsworker.Handler {
	intake, runner := p.Events, p.Backfills
	var soon func(error) bool
	if intake != nil {
		soon = intake.Waiting
	}
	b := sqsworker.Backoff{Throttled: d.Throttled, Soon: soon, MaxReceives: workers.MaxReceiveCount(), Redeliver: d.Redeliver,
		Now: d.DeadlineClock,
		AccountOf: func(msg events.SQSMessage) string {
			if job, ok := backfillStep(msg); ok {
				return job.AccountID
			}
			m, _ := stripewebhook.DecodeMessage(msg.Body)
			return m.AccountID
		},
		DeadLetter: func(ctx context.Context, msg events.SQSMessage, cause error) {
			if job, ok := backfillStep(msg); ok {
				workers.NoteDeadLetter(ctx, d.Store, job.AccountID, msg, cause, d.Now())
				if runner != nil {
					runner.Fail(ctx, job, cause)
				}
				return
			}
			m, _ := stripewebhook.DecodeMessage(msg.Body)
			slog.ErrorContext(ctx, "stripe event dead-lettered", "account_id", m.AccountID, "data_source_uuid", m.DataSourceUUID,
				"event_id", m.EventID, "event_type", m.EventType, "error", logsafe.Text(cause.Error()))
			workers.NoteDeadLetter(ctx, d.Store, m.AccountID, msg, cause, d.Now())
		}}
	return workers.DropGone(d.Store, b.Handler(func(ctx context.Context, msgs []events.SQSMessage) sqsworker.Failures {
		var evs, steps []events.SQSMessage
		for _, m := range msgs {
			if _, ok := backfillStep(m); ok {
				steps = append(steps, m)
			} else {
				evs = append(evs, m)
			}
		}
		failures := sqsworker.Failures{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		// A step reads Stripe for up to its step time: the batch's events do not wait for it.
		for _, m := range steps {
			wg.Go(func() {
				if err := step(ctx, d, runner, m); err != nil {
					mu.Lock()
					failures[m.MessageId] = err
					mu.Unlock()
				}
			})
		}
		if len(evs) > 0 && intake == nil {
			for _, m := range evs {
				failures[m.MessageId] = errNotRun
			}
		} else if len(evs) > 0 {
			applied := intake.ApplyBatch(ctx, evs)
			mu.Lock()
			maps.Copy(failures, applied)
			mu.Unlock()
		}
		wg.Wait()
		return failures
	}))
}

// errNotRun fails a message whose part the worker was built without (tests build it
// with one part only).
var errNotRun = errors.New("stripeworkers: no part of the worker runs this message")

// backfillStep is the backfill job a message carries, if it carries one.
func backfillStep(msg events.SQSMessage) (jobs.Message, bool) {
	job, err := jobs.Decode(msg.Body)
	return job, err == nil && job.Type == jobs.BackfillStripe
}

// step runs one step of a backfill and sends the next one when there is more to read.
func step(ctx context.Context, d *workers.Deps, runner Backfiller, msg events.SQSMessage) error {
	if runner == nil {
		return errNotRun
	}
	job, _ := backfillStep(msg)
	more, err := runner.Step(ctx, job)
	if err != nil || !more {
		return err
	}
	next := jobs.Continue(job, "")
	if err := d.StripeSteps.Send(ctx, next); err != nil {
		// This step is repeated from the position it saved: nothing is read twice.
		return err
	}
	slog.InfoContext(ctx, "stripe backfill continues in another step", "account_id", job.AccountID,
		"data_source_uuid", job.DataSourceUUID, "step", next.Step)
	return nil
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
