package sqsworker

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/sqsfake"
	"github.com/subsight/subsight/infra/testkit/testclock"
	"github.com/subsight/subsight/shared/awsclients"
)

// script is a BatchFunc whose n-th call fails the messages listed for it, and records
// what each call was given.
type script struct {
	mu    sync.Mutex
	fail  []map[string]error // per call: message id -> error
	calls [][]string
}

func (s *script) apply(ctx context.Context, msgs []events.SQSMessage) Failures {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, m := range msgs {
		ids = append(ids, m.MessageId)
	}
	s.calls = append(s.calls, ids)
	out := Failures{}
	if n := len(s.calls) - 1; n < len(s.fail) {
		if s.fail[n][msgs[0].MessageId] == errPanic {
			panic("boom")
		}
		for _, g := range Groups(msgs) { // the first failure of a group stops it
			for _, m := range g {
				if err := s.fail[n][m.MessageId]; err != nil {
					out[m.MessageId] = err
					break
				}
			}
		}
	}
	return out
}

// errPanic makes script panic.
var errPanic = errors.New("panic")

func batch(receives int, ids ...string) events.SQSEvent {
	var ev events.SQSEvent
	for _, id := range ids {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: id, Body: id,
			Attributes: map[string]string{"MessageGroupId": id[:1], "ApproximateReceiveCount": strconv.Itoa(receives)}})
	}
	return ev
}

func TestBackoff(t *testing.T) {
	throttle := &types.ProvisionedThroughputExceededException{Message: aws.String("exceeded")}
	boom := errors.New("boom")
	tests := []struct {
		name     string
		receives int
		deadline time.Duration // of the invocation
		fail     []map[string]error
		// wanted: the calls' messages, the failed ones, the early redeliveries, the dead letters
		calls       [][]string
		failed      []string
		redelivered []string
		deadLetters []string
	}{
		{name: "no failure", receives: 1, deadline: time.Minute,
			calls: [][]string{{"a1", "b1", "a2"}}},
		{name: "throttled, retried within the deadline and applied; the applied are not run again", receives: 1, deadline: time.Minute,
			fail:  []map[string]error{{"a2": throttle}, {"a2": throttle}},
			calls: [][]string{{"a1", "b1", "a2", "a3"}, {"a2", "a3"}, {"a2", "a3"}}},
		{name: "near the deadline: failed with a short redelivery, not marked failed", receives: 3, deadline: 2 * time.Second,
			fail:        []map[string]error{{"a1": throttle}},
			calls:       [][]string{{"a1", "b1", "a2"}},
			failed:      []string{"a1", "a2"},
			redelivered: []string{"a1", "a2"}},
		{name: "an attempt cut short by the deadline comes back soon, not marked failed", receives: 3, deadline: 2 * time.Second,
			fail:        []map[string]error{{"a1": context.DeadlineExceeded}},
			calls:       [][]string{{"a1", "b1", "a2"}},
			failed:      []string{"a1", "a2"},
			redelivered: []string{"a1", "a2"}},
		{name: "throttled on the last receive until the deadline: dead-lettered, so marked failed, and so is the untried later one", receives: 5, deadline: 2 * time.Second,
			fail:        []map[string]error{{"a1": throttle}},
			calls:       [][]string{{"a1", "a2"}},
			failed:      []string{"a1", "a2"},
			redelivered: []string{"a1", "a2"},
			deadLetters: []string{"a1", "a2"}},
		{name: "a non-throttle failure is not retried and waits out the visibility timeout", receives: 1, deadline: time.Minute,
			fail:   []map[string]error{{"b1": boom}},
			calls:  [][]string{{"a1", "b1", "a2", "b2"}},
			failed: []string{"b1", "b2"}},
		{name: "a non-throttle failure on the last receive goes to DeadLetter, back soon to leave for the dead-letter queue", receives: 5, deadline: time.Minute,
			fail:        []map[string]error{{"b1": boom}},
			calls:       [][]string{{"a1", "b1", "b2"}, {"b2"}},
			failed:      []string{"b1"},
			redelivered: []string{"b1"},
			deadLetters: []string{"b1"}},
		{name: "behind a poisoned message on its last receive, the later ones are tried on their own", receives: 5, deadline: time.Minute,
			fail:        []map[string]error{{"b1": boom}, {"b3": boom}},
			calls:       [][]string{{"a1", "b1", "b2", "b3", "b4"}, {"b2", "b3", "b4"}, {"b4"}},
			failed:      []string{"b1", "b3"},
			redelivered: []string{"b1", "b3"},
			deadLetters: []string{"b1", "b3"}},
		{name: "behind a poisoned message not on its last receive, the later ones wait (FIFO)", receives: 4, deadline: time.Minute,
			fail:   []map[string]error{{"b1": boom}},
			calls:  [][]string{{"a1", "b1", "b2"}},
			failed: []string{"b1", "b2"}},
		{name: "a panic fails every group's head and the batch is still settled", receives: 5, deadline: time.Minute,
			fail:        []map[string]error{{"a1": errPanic}},
			calls:       [][]string{{"a1", "b1"}},
			failed:      []string{"a1", "b1"},
			redelivered: []string{"a1", "b1"},
			deadLetters: []string{"a1", "b1"}},
		{name: "FIFO: a throttled group's later messages wait; the other group's failure stands", receives: 1, deadline: time.Minute,
			fail:   []map[string]error{{"a1": throttle, "b2": boom}},
			calls:  [][]string{{"a1", "b1", "a2", "b2"}, {"a1", "a2"}},
			failed: []string{"b2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{fail: tc.fail}
			r := &sqsfake.Redeliveries{}
			var deadLetters []string
			b := Backoff{Throttled: awsclients.Throttled, MaxReceives: 5, Redeliver: r, FirstWait: time.Millisecond, MaxWait: 2 * time.Millisecond, Margin: 3 * time.Second,
				DeadLetter: func(_ context.Context, msg events.SQSMessage, _ error) {
					deadLetters = append(deadLetters, msg.MessageId)
				}}
			ctx, cancel := context.WithTimeout(context.Background(), tc.deadline)
			defer cancel()
			ev := batch(tc.receives, tc.calls[0]...)
			resp, err := b.Handler(s.apply)(ctx, ev)
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, f := range resp.BatchItemFailures {
				failed = append(failed, f.ItemIdentifier)
			}
			check := func(what string, got, want any) {
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %v, want %v", what, got, want)
				}
			}
			check("calls", s.calls, tc.calls)
			check("failed", failed, tc.failed)
			check("redelivered early", r.IDs, tc.redelivered)
			check("dead letters", deadLetters, tc.deadLetters)
			if tc.redelivered != nil && r.Delay != DefaultRedeliveryDelay {
				t.Errorf("redelivery delay %v, want %v", r.Delay, DefaultRedeliveryDelay)
			}
		})
	}
}

// TestBackoffAttempt: the second application within the invocation knows it is one.
func TestBackoffAttempt(t *testing.T) {
	var attempts []int
	first := true
	apply := func(ctx context.Context, msgs []events.SQSMessage) Failures {
		attempts = append(attempts, Attempt(ctx))
		if first {
			first = false
			return Failures{msgs[0].MessageId: &types.ProvisionedThroughputExceededException{}}
		}
		return nil
	}
	b := Backoff{Throttled: awsclients.Throttled, FirstWait: time.Millisecond, MaxWait: time.Millisecond}
	if _, err := b.Handler(apply)(context.Background(), batch(1, "a1")); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(attempts, []int{1, 2}) {
		t.Errorf("attempts %v, want [1 2]", attempts)
	}
}

// rounds applies a batch in Rounds, as the workers do; every round takes roundTime of
// the fake clock.
func rounds(clock *testclock.Clock, roundTime time.Duration, applied *[]string) BatchFunc {
	return func(ctx context.Context, msgs []events.SQSMessage) Failures {
		out := Failures{}
		Rounds(ctx, Groups(msgs), out, func(_ context.Context, due []events.SQSMessage) []error {
			for _, m := range due {
				*applied = append(*applied, m.MessageId)
			}
			clock.Advance(roundTime)
			return make([]error, len(due))
		})
		return out
	}
}

// TestBackoffStopsStartingNearTheDeadline: rounds of 20 s (of a fake clock) in an
// invocation of 60 s with a margin of 15 s: the fourth round is not started; its
// message is reported failed and asked back soon, not logged or counted as a failure
// of its own, unless it is on its last receive, where it goes to DeadLetter (it would
// reach the dead-letter queue untried).
func TestBackoffStopsStartingNearTheDeadline(t *testing.T) {
	tests := []struct {
		name        string
		receives    int
		deadLetters []string
	}{
		{name: "an early receive", receives: 1},
		{name: "the last receive", receives: 5, deadLetters: []string{"a4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := testclock.At(time.Now())
			var applied, deadLetters []string
			r := &sqsfake.Redeliveries{}
			b := Backoff{MaxReceives: 5, Redeliver: r, Margin: 15 * time.Second, Now: clock.Now,
				DeadLetter: func(_ context.Context, msg events.SQSMessage, err error) {
					if !errors.Is(err, ErrNotStarted) {
						t.Errorf("dead letter %s: %v, want ErrNotStarted", msg.MessageId, err)
					}
					deadLetters = append(deadLetters, msg.MessageId)
				}}
			ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(time.Minute))
			defer cancel()
			resp, err := b.Handler(rounds(clock, 20*time.Second, &applied))(ctx, batch(tc.receives, "a1", "b1", "a2", "a3", "a4"))
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, f := range resp.BatchItemFailures {
				failed = append(failed, f.ItemIdentifier)
			}
			if want := []string{"a1", "b1", "a2", "a3"}; !reflect.DeepEqual(applied, want) {
				t.Errorf("applied %v, want %v", applied, want)
			}
			if !reflect.DeepEqual(failed, []string{"a4"}) || !reflect.DeepEqual(r.IDs, []string{"a4"}) {
				t.Errorf("failed %v, redelivered early %v; want [a4], [a4]", failed, r.IDs)
			}
			if !reflect.DeepEqual(deadLetters, tc.deadLetters) {
				t.Errorf("dead letters %v, want %v", deadLetters, tc.deadLetters)
			}
		})
	}
}
