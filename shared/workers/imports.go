package workers

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/logsafe"
	"github.com/subsight/subsight/shared/sqsworker"
)

// defaultMaxReceiveCount is the worker queues' redrive MaxReceiveCount in
// template.yaml; IMPORT_MAX_RECEIVE_COUNT overrides it.
const defaultMaxReceiveCount = 20

// Import runs the import queue: one message per customer of a json_imports batch.
// Throttled customers wait for capacity and come back soon (sqsworker.Backoff); the
// messages that leave the queue are counted in their account's import lane. A deleted
// account's messages are dropped unrun (DropGone), and uncounted: its lane is gone too.
func Import(d *Deps) sqsworker.Handler {
	b := importBackoff(d.Imports, MaxReceiveCount(), d.Throttled, d.Redeliver)
	b.Now = d.DeadlineClock
	return DropGone(d.Store, countLeaving(d.Imports, MaxReceiveCount(), b.Handler(applyImports(d.Imports))))
}

// ImportCounted is Import on a given pipeline, without early redelivery.
func ImportCounted(p *imports.Pipeline, maxReceives int, throttled func(error) bool) sqsworker.Handler {
	return countLeaving(p, maxReceives, ImportWith(p, maxReceives, throttled))
}

func MaxReceiveCount() int {
	if n, err := strconv.Atoi(os.Getenv("IMPORT_MAX_RECEIVE_COUNT")); err == nil && n > 0 {
		return n
	}
	return defaultMaxReceiveCount
}

// ImportWith is Import on a given pipeline without early redelivery (tests inject
// failures through it).
func ImportWith(p *imports.Pipeline, maxReceives int, throttled func(error) bool) sqsworker.Handler {
	return ImportAt(p, maxReceives, throttled, nil)
}

// ImportAt is ImportWith measuring the invocation's deadline with the clock now (nil:
// time.Now): tests make time pass with it.
func ImportAt(p *imports.Pipeline, maxReceives int, throttled func(error) bool, now func() time.Time) sqsworker.Handler {
	b := importBackoff(p, maxReceives, throttled, nil)
	b.Now = now
	return b.Handler(applyImports(p))
}

// importBackoff marks a customer failed in its import on the last receive before the
// dead-letter queue, which is how the status shows a message that went there.
func importBackoff(p *imports.Pipeline, maxReceives int, throttled func(error) bool, redeliver sqsworker.Redeliverer) sqsworker.Backoff {
	return sqsworker.Backoff{Throttled: throttled, MaxReceives: maxReceives, Redeliver: redeliver,
		AccountOf: func(msg events.SQSMessage) string {
			m, _ := imports.DecodeMessage(msg.Body)
			return m.AccountID
		},
		DeadLetter: func(ctx context.Context, msg events.SQSMessage, cause error) {
			m, err := imports.DecodeMessage(msg.Body)
			NoteDeadLetter(ctx, p.Store, m.AccountID, msg, cause, p.Now())
			if err != nil {
				return // nothing to mark: it goes to the dead-letter queue as it is
			}
			if err := p.MarkFailed(ctx, m); err != nil {
				slog.ErrorContext(ctx, "could not mark the customer failed", "account_id", m.AccountID, "error", logsafe.Text(err.Error()))
			}
		}}
}

// applyImports applies a batch of the import queue.
//
// The batch is applied in rounds: round k holds the k-th message of every customer
// (message group) of the batch, so a customer's records apply in order while the
// customers of a round share their reads and writes (imports.Pipeline.ApplyMessages).
// The first failure of a customer fails its later messages too, and one failing
// customer does not hold the others back. Near the deadline no round is started
// (sqsworker.Rounds). A message that does not decode fails where it stands, before the
// rounds: its group stops there.
func applyImports(p *imports.Pipeline) sqsworker.BatchFunc {
	return func(ctx context.Context, records []events.SQSMessage) sqsworker.Failures {
		failures := sqsworker.Failures{}
		decoded := map[string]imports.Message{}
		groups := sqsworker.Groups(records)
		for gi, g := range groups {
			for i, msg := range g {
				m, err := imports.DecodeMessage(msg.Body)
				if err != nil {
					// Nothing to mark: it goes to the dead-letter queue as it is.
					failures[msg.MessageId] = err
					groups[gi] = g[:i]
					break
				}
				decoded[msg.MessageId] = m
			}
		}
		sqsworker.Rounds(ctx, groups, failures, func(ctx context.Context, msgs []events.SQSMessage) []error {
			batch := make([]imports.Delivery, len(msgs))
			for i, msg := range msgs {
				// A second attempt within the invocation may meet its first one's writes.
				// So may a message replayed from the dead-letter queue (admin dlq redrive).
				redelivered := sqsworker.ReceiveCount(msg) > 1 || sqsworker.Attempt(ctx) > 1 || sqsworker.Redriven(msg)
				batch[i] = imports.Delivery{Message: decoded[msg.MessageId], Redelivered: redelivered}
			}
			errs := p.ApplyMessages(ctx, batch)
			for i, err := range errs {
				if err == nil {
					slog.InfoContext(ctx, "import customer applied", "account_id", batch[i].AccountID,
						"import_id", batch[i].ImportID, "customer_external_id", batch[i].CustomerExternalID)
				}
			}
			return errs
		})
		return failures
	}
}
