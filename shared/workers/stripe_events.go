package workers

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/logsafe"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/stripewebhook"
)

// StripeEvents runs the Stripe events queue: each verified webhook event applied by the
// sync, one Stripe customer's events in the order received (stripewebhook.Deps.ApplyBatch).
// A failing event fails its customer's later events of the batch and comes back with
// them, within seconds when it waits for another event (stripewebhook.Deps.Waiting);
// throttled ones wait for capacity (sqsworker.Backoff); one that fails on every
// receive reaches the dead-letter queue after the queue's maxReceiveCount, noted for
// `admin dlq list`. A deleted account's events are dropped unrun (dropGone).
func StripeEvents(d *Deps) sqsworker.Handler {
	b := sqsworker.Backoff{Throttled: d.Throttled, Soon: d.Stripe.Waiting, MaxReceives: maxReceiveCount(), Redeliver: d.Redeliver,
		Now: d.DeadlineClock,
		AccountOf: func(msg events.SQSMessage) string {
			m, _ := stripewebhook.DecodeMessage(msg.Body)
			return m.AccountID
		},
		DeadLetter: func(ctx context.Context, msg events.SQSMessage, cause error) {
			m, _ := stripewebhook.DecodeMessage(msg.Body)
			slog.ErrorContext(ctx, "stripe event dead-lettered", "account_id", m.AccountID, "data_source_uuid", m.DataSourceUUID,
				"event_id", m.EventID, "event_type", m.EventType, "error", logsafe.Text(cause.Error()))
			noteDeadLetter(ctx, d.Store, m.AccountID, msg, cause, d.Now())
		}}
	return dropGone(d.Store, b.Handler(d.Stripe.ApplyBatch))
}
