package sqsworker

import (
	"context"
	"errors"
	"time"
)

// ErrNotStarted is the failure a BatchFunc reports for the first message of a group it
// did not start because MayStart said no: the message did not fail, it was not tried.
// Backoff reports it (and the group's later messages) failed so that Lambda returns it
// to the queue, asks for its redelivery within seconds, and neither retries it within
// the invocation nor logs it as a failed message.
var ErrNotStarted = errors.New("sqsworker: not started before the invocation's deadline")

type startByKey struct{}

type startBy struct {
	at  time.Time
	now func() time.Time
}

// withStartBy makes MayStart(ctx) false from at on, by now's clock.
func withStartBy(ctx context.Context, at time.Time, now func() time.Time) context.Context {
	return context.WithValue(ctx, startByKey{}, startBy{at: at, now: now})
}

// MayStart tells a BatchFunc (or a job it runs) whether the invocation still has time
// for another piece of work: false once the deadline is less than Backoff's Margin
// away. Work not started is reported with ErrNotStarted; a job that does its work in
// steps saves its position and asks for its continuation. True outside Backoff.
func MayStart(ctx context.Context) bool {
	s, ok := ctx.Value(startByKey{}).(startBy)
	return !ok || s.now().Before(s.at)
}
