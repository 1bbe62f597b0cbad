package workers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
)

// DropGone wraps a worker: the messages of accounts that no longer exist (deleted by
// `admin delete-account`, which deletes the account item before anything else) are
// taken off the queue unrun, so work queued before a deletion never writes the
// account's items again. One consistent GetItem per account of the batch.
func DropGone(st store.Accounts, next sqsworker.Handler) sqsworker.Handler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		live := map[string]bool{}
		kept := ev.Records[:0:0]
		for _, msg := range ev.Records {
			account := accountOf(msg)
			alive, seen := live[account]
			if !seen {
				_, err := st.GetAccount(ctx, account)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					// Unsure: run it, as before the check existed.
					alive = true
				} else {
					alive = err == nil || account == ""
				}
				live[account] = alive
			}
			if alive {
				kept = append(kept, msg)
				continue
			}
			slog.InfoContext(ctx, "message of a deleted account dropped", "account_id", account, "message_id", msg.MessageId)
		}
		if len(kept) == 0 {
			return events.SQSEventResponse{}, nil
		}
		ev.Records = kept
		return next(ctx, ev)
	}
}

// accountOf is the account a worker message belongs to: the import, jobs and feeder
// messages each name it ("" when the body names none).
func accountOf(msg events.SQSMessage) string {
	var m struct {
		AccountID     string `json:"account_id"`
		FeedAccountID string `json:"feed_account_id"`
	}
	if json.Unmarshal([]byte(msg.Body), &m) != nil {
		return ""
	}
	if m.AccountID != "" {
		return m.AccountID
	}
	return m.FeedAccountID
}
