package workers

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/logsafe"
	"github.com/subsight/subsight/shared/sqsworker"
)

// ImportFeeder runs the feeder queue of the accounts' import lanes (docs/architecture.md,
// "Lanes"): each message asks to feed one account, its message group, so one account's
// feeding never runs twice at once. Several messages of an account in one batch are
// one feed. A deleted account's feed messages are dropped (DropGone): its chain of
// feeds ends there.
func ImportFeeder(d *Deps) sqsworker.Handler {
	return DropGone(d.Store, func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		groups := sqsworker.Groups(ev.Records)
		failedAt := make([]int, len(groups))
		for gi, g := range groups {
			failedAt[gi] = len(g)
			m, err := imports.DecodeFeedMessage(g[0].Body)
			if err == nil {
				err = d.Imports.Feed(ctx, m.AccountID)
			}
			if err != nil {
				slog.ErrorContext(ctx, "import lane feed failed", "account_id", m.AccountID, "message_id", g[0].MessageId, "error", logsafe.Text(err.Error()))
				failedAt[gi] = 0
				if sqsworker.ReceiveCount(g[0]) >= MaxReceiveCount() {
					NoteDeadLetter(ctx, d.Store, m.AccountID, g[0], err, d.Now())
				}
			}
		}
		return sqsworker.FailedFrom(groups, failedAt), nil
	})
}

// countLeaving wraps the import worker: the customer messages that leave the import
// queue (applied and deleted, or failed on their last receive and moved to the
// dead-letter queue) free their slots in their account's lane, one write per account
// and batch. When that write fails the whole batch is reported failed: its messages
// come back, apply again as no-ops and are counted then.
func countLeaving(p *imports.Pipeline, maxReceives int, next sqsworker.Handler) sqsworker.Handler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		resp, err := next(ctx, ev)
		if err != nil || p.Lanes == nil {
			return resp, err
		}
		failed := map[string]bool{}
		for _, f := range resp.BatchItemFailures {
			failed[f.ItemIdentifier] = true
		}
		perAccount := map[string]int64{}
		for _, msg := range ev.Records {
			if failed[msg.MessageId] && sqsworker.ReceiveCount(msg) < maxReceives {
				continue
			}
			if account := accountOf(msg); account != "" {
				perAccount[account]++
			}
		}
		if err := p.Applied(ctx, perAccount); err != nil {
			slog.ErrorContext(ctx, "could not count the applied import messages", "error", err.Error())
			return resp, err
		}
		return resp, nil
	}
}
