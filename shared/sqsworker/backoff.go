package sqsworker

import (
	"context"
	"log/slog"
	"math/rand/v2"
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
// DeadLetter is called for the first failed message of each group reported failed on
// its last receive (MaxReceives, the queue's maxReceiveCount), whatever the error: the
// message goes to the dead-letter queue on its next receive. A throttled receive
// costs about one function timeout of waiting, so maxReceiveCount bounds how long a
// throttle storm on one partition may last (docs/architecture.md, "Throttling").
type Backoff struct {
	// Throttled tells the failures that are throttles (nil: none is; awsclients.Throttled
	// on AWS's errors).
	Throttled   func(error) bool
	MaxReceives int
	Redeliver   Redeliverer // nil: failed messages wait out the visibility timeout
	DeadLetter  func(ctx context.Context, msg events.SQSMessage, err error)
	// AccountOf names the account of a message in the failure lines (nil: none).
	AccountOf func(events.SQSMessage) string

	FirstWait, MaxWait, Margin, RedeliveryDelay, Budget time.Duration // zero: the defaults
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
			deadline = time.Now().Add(b.Budget)
		}
		var gaveUp []failedTail
		pending := ev.Records
		for attempt := 1; len(pending) > 0; attempt++ {
			actx, cancel := attemptContext(context.WithValue(ctx, attemptKey{}, attempt), ok, deadline)
			failures := apply(actx, pending)
			cut := actx.Err() != nil && ctx.Err() == nil
			cancel()
			var throttled []failedTail
			for _, t := range tails(pending, failures) {
				// An attempt cut short for the deadline failed for want of time, not of
				// the message: it comes back soon too.
				t.soon = (b.Throttled != nil && b.Throttled(t.err)) || cut
				if t.soon {
					throttled = append(throttled, t)
				} else {
					gaveUp = append(gaveUp, t)
				}
			}
			if len(throttled) == 0 {
				break
			}
			wait := b.wait(attempt)
			if cut || time.Until(deadline)-b.Margin < wait {
				slog.WarnContext(ctx, "still throttled near the deadline; redelivering soon", "groups", len(throttled),
					"attempts", attempt, "redelivery_delay", b.RedeliveryDelay.String())
				gaveUp = append(gaveUp, throttled...)
				break
			}
			slog.InfoContext(ctx, "throttled; waiting for capacity", "groups", len(throttled), "attempt", attempt, "wait", wait.String())
			select {
			case <-ctx.Done():
				gaveUp = append(gaveUp, throttled...)
				pending = nil
				continue
			case <-time.After(wait):
			}
			pending = pending[:0:0]
			for _, t := range throttled {
				pending = append(pending, t.msgs...)
			}
		}
		return b.settle(ctx, ev, gaveUp), nil
	}
}

// settle reports the tails failed, asks for the throttled ones' early redelivery and
// hands the last receives to DeadLetter.
func (b Backoff) settle(ctx context.Context, ev events.SQSEvent, gaveUp []failedTail) events.SQSEventResponse {
	failed := map[string]bool{}
	var soon []events.SQSMessage
	for _, t := range gaveUp {
		for _, m := range t.msgs {
			failed[m.MessageId] = true
		}
		if t.soon {
			soon = append(soon, t.msgs...)
		}
		first := t.msgs[0]
		account := ""
		if b.AccountOf != nil {
			account = b.AccountOf(first)
		}
		slog.ErrorContext(ctx, "message failed", "account_id", account, "message_id", first.MessageId,
			"group", first.Attributes["MessageGroupId"], "receive_count", ReceiveCount(first), "throttled", t.soon,
			"error", logsafe.Text(t.err.Error()), "later_failed", len(t.msgs)-1)
		if b.DeadLetter != nil && b.MaxReceives > 0 && ReceiveCount(first) >= b.MaxReceives {
			b.DeadLetter(ctx, first, t.err)
		}
	}
	if len(soon) > 0 && b.Redeliver != nil {
		// Without a deadline left the messages still come back, after the visibility timeout.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := b.Redeliver.Redeliver(rctx, soon, b.RedeliveryDelay); err != nil {
			slog.WarnContext(ctx, "could not shorten the redelivery of throttled messages", "messages", len(soon), "error", logsafe.Text(err.Error()))
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
