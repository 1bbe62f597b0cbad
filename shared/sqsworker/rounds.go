package sqsworker

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
)

// RoundFunc runs messages of distinct groups together and returns one error per
// message, in order.
type RoundFunc func(ctx context.Context, msgs []events.SQSMessage) []error

// Rounds runs groups' messages in rounds and records their failures: round k holds the
// k-th message of every group that has not failed yet, so each group's messages run in
// order while the messages of a round, one per group, run together in one call of run.
// A group's first failure stops it (its later messages are not run: Backoff fails them
// with it); the other groups go on. Near the deadline no round is started: its messages
// fail with ErrNotStarted (MayStart).
func Rounds(ctx context.Context, groups [][]events.SQSMessage, failures Failures, run RoundFunc) {
	failed := make([]bool, len(groups))
	for round := 0; ; round++ {
		var msgs []events.SQSMessage
		var from []int
		for gi, g := range groups {
			if round < len(g) && !failed[gi] {
				msgs, from = append(msgs, g[round]), append(from, gi)
			}
		}
		if len(msgs) == 0 {
			return
		}
		if !MayStart(ctx) {
			for _, m := range msgs {
				failures[m.MessageId] = ErrNotStarted
			}
			return
		}
		for i, err := range run(ctx, msgs) {
			if err != nil {
				failures[msgs[i].MessageId] = err
				failed[from[i]] = true
			}
		}
	}
}
