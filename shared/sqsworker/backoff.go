package sqsworker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/logsafe"
)

// Failures are the errors of a batch's failed messages by message id: the first failed
// message of each message group that failed. The group's later messages of the batch
// fail with it, unapplied (FIFO order).
type Failures map[string]error

// BatchFunc applies a batch of messages in order within each group.
type BatchFunc func(ctx context.Context, msgs []events.SQSMessage) Failures

// Redeliverer makes failed messages visible again after delay instead of after the
// queue's visibility timeout.
type Redeliverer interface {
	Redeliver(ctx context.Context, msgs []events.SQSMessage, delay time.Duration) error
}

// Defaults of Backoff.
const (
	DefaultFirstWait       = 200 * time.Millisecond
	DefaultMaxWait         = 5 * time.Second
	DefaultMargin          = 15 * time.Second
	DefaultRedeliveryDelay = 5 * time.Second
	// DefaultBudget is how long throttles are retried when the context has no deadline
	// (tests; Lambda always sets one).
	DefaultBudget = 20 * time.Second
)

// Backoff runs a BatchFunc so that throttling never fails a message before capacity
// had time to return. A group whose first failure is a throttle (the Throttled field) is applied
// again, from that message on, after a growing, jittered wait, for as long as the
// invocation's deadline leaves Margin for one more attempt; the messages already
// applied are not sent again. Only then are its messages reported failed, and made
// visible again after RedeliveryDelay (Redeliverer) rather than after the queue's
// visibility timeout of six function timeouts. Any other failure is reported at once
// and waits out the visibility timeout, as before.
//
// A group whose first failure is on its last receive (MaxReceives, the queue's
// maxReceiveCount) loses that message to the dead-letter queue, so its later messages
// of the batch are applied again at once, on their own, rather than failed with it:
// otherwise they would reach the dead-letter queue on the same receive, never tried.
//
// Near the deadline the BatchFunc starts no more work (MayStart) and reports what it
// did not start with ErrNotStarted: failed for SQS, redelivered soon, not retried.
//
// DeadLetter is called for every message reported failed on its last receive, whatever
// the error (ErrNotStarted for one never tried): it goes to the dead-letter queue on its
// next receive, which early redelivery makes a few seconds away. A throttled receive
// costs about one function timeout of waiting, so maxReceiveCount bounds how long a
// throttle storm on one partition may last (docs/architecture.md, "Throttling").
type Backoff struct {
	// Throttled tells the failures that are throttles (nil: none is; awsclients.Throttled
	// on AWS's errors).
	Throttled func(error) bool
	// Soon tells the failures worth another delivery within seconds rather than after
	// the visibility timeout, without a wait in the invocation: work that waits for
	// other work (a Stripe event whose invoice another event brings). nil: none.
	Soon        func(error) bool
	MaxReceives int
	Redeliver   Redeliverer // nil: failed messages wait out the visibility timeout
	DeadLetter  func(ctx context.Context, msg events.SQSMessage, err error)
	// AccountOf names the account of a message in the failure lines (nil: none).
	AccountOf func(events.SQSMessage) string

	FirstWait, MaxWait, Margin, RedeliveryDelay, Budget time.Duration // zero: the defaults
	// Now is the clock that MayStart and the throttle waits measure the deadline with
	// (nil: time.Now; tests make time pass with it).
	Now func() time.Time
}

type attemptKey struct{}

// Attempt is which application of the messages within the invocation this is (1 the
// first). From the second on, an earlier attempt may have written part of the messages.
func Attempt(ctx context.Context) int {
	if n, ok := ctx.Value(attemptKey{}).(int); ok {
		return n
	}
	return 1
}

// ReceiveCount is the message's ApproximateReceiveCount (1 on its first delivery).
func ReceiveCount(msg events.SQSMessage) int {
	n, _ := strconv.Atoi(msg.Attributes["ApproximateReceiveCount"])
	return n
}

// failedTail is a group's messages from its first failure on.
type failedTail struct {
	msgs []events.SQSMessage
	err  error
	soon bool // throttled (or cut short by the deadline): redeliver early
}

// settleTime is what an invocation keeps after its last attempt to report the batch
// and ask for early redeliveries: an attempt still running then (the SDK's own retries
// of a throttled request take up to half a minute) is cut short, so that the function
// never runs into its timeout, which would fail the whole batch for the full visibility
// timeout.
const settleTime = 3 * time.Second

// attemptContext bounds an attempt by the invocation's deadline less settleTime (when
// the invocation has a deadline).
func attemptContext(ctx context.Context, hasDeadline bool, deadline time.Time) (context.Context, context.CancelFunc) {
	if !hasDeadline {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, deadline.Add(-settleTime))
}

// Handler builds the Lambda handler.
func (b Backoff) Handler(apply BatchFunc) Handler {
	b = b.withDefaults()
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		deadline, ok := ctx.Deadline()
		if !ok {
			deadline = b.Now().Add(b.Budget)
		}
		var gaveUp []failedTail
		pending := ev.Records
		for attempt := 1; len(pending) > 0; attempt++ {
			actx, cancel := attemptContext(context.WithValue(ctx, attemptKey{}, attempt), ok, deadline)
			failures := b.run(withStartBy(actx, deadline.Add(-b.Margin), b.Now), apply, pending)
			cut := actx.Err() != nil && ctx.Err() == nil
			cancel()
			var throttled []failedTail
			var behindDead []events.SQSMessage // later messages of groups whose head is dead-lettered
			for _, t := range tails(pending, failures) {
				switch {
				case errors.Is(t.err, ErrNotStarted), b.Soon != nil && b.Soon(t.err):
					t.soon = true
					gaveUp = append(gaveUp, t)
				// An attempt cut short for the deadline failed for want of time, not of
				// the message: it comes back soon too.
				case cut || (b.Throttled != nil && b.Throttled(t.err)):
					t.soon = true
					throttled = append(throttled, t)
				default:
					// A head failing on its last receive goes to the dead-letter queue, so
					// FIFO order no longer asks its group's later messages to wait for it:
					// they are tried on their own, not dead-lettered with it untried.
					if b.lastReceive(t.msgs[0]) && len(t.msgs) > 1 {
						behindDead = append(behindDead, t.msgs[1:]...)
						t.msgs = t.msgs[:1]
					}
					gaveUp = append(gaveUp, t)
				}
			}
			if len(throttled) > 0 {
				wait := b.wait(attempt)
				if cut || deadline.Sub(b.Now())-b.Margin < wait {
					slog.WarnContext(ctx, "still throttled near the deadline; redelivering soon", "groups", len(throttled),
						"attempts", attempt, "redelivery_delay", b.RedeliveryDelay.String())
					gaveUp = append(gaveUp, throttled...)
					throttled = nil
				} else {
					slog.InfoContext(ctx, "throttled; waiting for capacity", "groups", len(throttled), "attempt", attempt, "wait", wait.String())
					select {
					case <-ctx.Done():
						gaveUp = append(gaveUp, throttled...)
						gaveUp = append(gaveUp, notStarted(behindDead)...)
						throttled, behindDead = nil, nil
					case <-time.After(wait):
					}
				}
			}
			pending = behindDead
			for _, t := range throttled {
				pending = append(pending, t.msgs...)
			}
		}
		return b.settle(ctx, ev, gaveUp), nil
	}
}

// run applies msgs; a panic fails the head of every group (its stack is logged), so
// that the batch is still settled, last receives included.
func (b Backoff) run(ctx context.Context, apply BatchFunc, msgs []events.SQSMessage) (failures Failures) {
	defer func() {
		if r := recover(); r != nil {
			slog.ErrorContext(ctx, "batch panicked", "panic", logsafe.Text(fmt.Sprint(r)), "stack", string(debug.Stack()))
			err := fmt.Errorf("sqsworker: panic: %v", r)
			failures = Failures{}
			for _, g := range Groups(msgs) {
				failures[g[0].MessageId] = err
			}
		}
	}()
	return apply(ctx, msgs)
}

// notStarted is msgs, by group, as tails not started.
func notStarted(msgs []events.SQSMessage) []failedTail {
	var out []failedTail
	for _, g := range Groups(msgs) {
		out = append(out, failedTail{msgs: g, err: ErrNotStarted, soon: true})
	}
	return out
}

// lastReceive tells a message that goes to the dead-letter queue if it fails now.
func (b Backoff) lastReceive(msg events.SQSMessage) bool {
	return b.MaxReceives > 0 && ReceiveCount(msg) >= b.MaxReceives
}

// settle reports the tails failed, asks for the early redelivery of the throttled,
// the unstarted and the last receives (these go to the dead-letter queue at once rather
// than locking their group for a visibility timeout) and hands every failed last
// receive to DeadLetter: tried and failed, or never tried, it is dead-lettered either way.
func (b Backoff) settle(ctx context.Context, ev events.SQSEvent, gaveUp []failedTail) events.SQSEventResponse {
	failed := map[string]bool{}
	var soon []events.SQSMessage
	for _, t := range gaveUp {
		first := t.msgs[0]
		account := ""
		if b.AccountOf != nil {
			account = b.AccountOf(first)
		}
		if errors.Is(t.err, ErrNotStarted) {
			slog.WarnContext(ctx, "not started before the deadline; redelivering soon", "account_id", account,
				"message_id", first.MessageId, "group", first.Attributes["MessageGroupId"], "messages", len(t.msgs))
		} else {
			slog.ErrorContext(ctx, "message failed", "account_id", account, "message_id", first.MessageId,
				"group", first.Attributes["MessageGroupId"], "receive_count", ReceiveCount(first), "throttled", t.soon,
				"error", logsafe.Text(t.err.Error()), "later_failed", len(t.msgs)-1)
		}
		for i, m := range t.msgs {
			failed[m.MessageId] = true
			last := b.lastReceive(m)
			if t.soon || last {
				soon = append(soon, m)
			}
			if !last || b.DeadLetter == nil {
				continue
			}
			err := t.err
			if i > 0 {
				err = ErrNotStarted
			}
			slog.WarnContext(ctx, "last receive failed; dead-lettered", "account_id", account, "message_id", m.MessageId,
				"tried", !errors.Is(err, ErrNotStarted))
			b.DeadLetter(ctx, m, err)
		}
	}
	if len(soon) > 0 && b.Redeliver != nil {
		// Without a deadline left the messages still come back, after the visibility timeout.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := b.Redeliver.Redeliver(rctx, soon, b.RedeliveryDelay); err != nil {
			slog.WarnContext(ctx, "could not shorten the redelivery of failed messages", "messages", len(soon), "error", logsafe.Text(err.Error()))
		}
	}
	var resp events.SQSEventResponse
	for _, m := range ev.Records {
		if failed[m.MessageId] {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
		}
	}
	return resp
}

// tails splits msgs by group and returns, for each group with a failure, its messages
// from the first failed one on.
func tails(msgs []events.SQSMessage, failures Failures) []failedTail {
	if len(failures) == 0 {
		return nil
	}
	var out []failedTail
	for _, g := range Groups(msgs) {
		for i, m := range g {
			if err := failures[m.MessageId]; err != nil {
				out = append(out, failedTail{msgs: g[i:], err: err})
				break
			}
		}
	}
	return out
}

// wait is the pause before attempt+1: exponential from FirstWait, capped at MaxWait,
// with half of it random so that the throttled workers do not return in step.
func (b Backoff) wait(attempt int) time.Duration {
	d := b.MaxWait
	if attempt < 30 {
		d = min(b.MaxWait, b.FirstWait<<(attempt-1))
	}
	return d/2 + rand.N(d/2+1)
}

func (b Backoff) withDefaults() Backoff {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&b.FirstWait, DefaultFirstWait)
	def(&b.MaxWait, DefaultMaxWait)
	def(&b.Margin, DefaultMargin)
	def(&b.RedeliveryDelay, DefaultRedeliveryDelay)
	def(&b.Budget, DefaultBudget)
	if b.Now == nil {
		b.Now = time.Now
	}
	return b
}

// RedrivenAttribute is the message attribute of a message replayed from its
// dead-letter queue (`admin dlq redrive`): its earlier receives may have written part
// of its work, as a redelivery's may.
const RedrivenAttribute = "subsight_redriven"

// Redriven reports whether msg was replayed from its dead-letter queue.
func Redriven(msg events.SQSMessage) bool {
	_, ok := msg.MessageAttributes[RedrivenAttribute]
	return ok
}
