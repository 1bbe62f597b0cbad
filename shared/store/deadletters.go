package store

import (
	"context"
	"time"
)

// DeadLetterNote is why a queue message failed on its last receive, written by the
// worker just before SQS moves the message to its dead-letter queue: the queue keeps
// the message, not the error, and the operator's listing groups messages by it.
type DeadLetterNote struct {
	AccountID string
	MessageID string
	Queue     string // the queue the message failed in (its name)
	Error     string // free of personal data (logsafe)
	At        time.Time
}

// DeadLetterNoteTTL is how long a note is kept: longer than a dead-letter queue keeps
// its messages (14 days), so a listed message always finds its note.
const DeadLetterNoteTTL = 15 * 24 * time.Hour

// DeadLetters keep the notes of dead-lettered messages.
type DeadLetters interface {
	// NoteDeadLetter records (or replaces) a message's note; it expires after
	// DeadLetterNoteTTL.
	NoteDeadLetter(ctx context.Context, n DeadLetterNote) error
	// DeadLetterNotes reads the notes of an account's messages by message id; messages
	// without one are absent from the map.
	DeadLetterNotes(ctx context.Context, accountID string, messageIDs []string) (map[string]DeadLetterNote, error)
}
