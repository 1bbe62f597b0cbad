package workers

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/logsafe"
	"github.com/subsight/subsight/shared/store"
)

// maxNoteLength bounds a note's error text: enough to group the messages by it.
const maxNoteLength = 500

// NoteDeadLetter records why msg failed on its last receive, just before SQS moves it
// to its dead-letter queue, which keeps the message but not the error: `admin dlq
// list` groups the dead-lettered messages by it. A message without an account
// (undecodable) gets none; a failed write is logged, the message goes on regardless.
func NoteDeadLetter(ctx context.Context, notes store.DeadLetters, accountID string, msg events.SQSMessage, cause error, now time.Time) {
	if accountID == "" || cause == nil {
		return
	}
	text := logsafe.Text(cause.Error())
	if len(text) > maxNoteLength {
		text = strings.ToValidUTF8(text[:maxNoteLength], "")
	}
	queue := msg.EventSourceARN[strings.LastIndex(msg.EventSourceARN, ":")+1:]
	n := store.DeadLetterNote{AccountID: accountID, MessageID: msg.MessageId, Queue: queue, Error: text, At: now}
	if err := notes.NoteDeadLetter(ctx, n); err != nil {
		slog.ErrorContext(ctx, "could not note why a message is dead-lettered", "account_id", accountID,
			"message_id", msg.MessageId, "error", logsafe.Text(err.Error()))
	}
}
