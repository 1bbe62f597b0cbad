package sqsworker

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/testkit/testclock"
)

// TestRounds: round k runs the k-th message of every group not failed yet, together; a
// group's failure stops it and not the others; near the deadline the round due is not
// started and its messages fail with ErrNotStarted.
func TestRounds(t *testing.T) {
	errBad := errors.New("bad")
	tests := []struct {
		name         string
		fail         map[string]error
		roomFor      int // rounds started before the deadline's margin; 0: no deadline
		wantRounds   [][]string
		wantFailures Failures
	}{
		{name: "all applied", wantRounds: [][]string{{"a1", "b1", "c1"}, {"a2", "b2"}, {"a3"}}, wantFailures: Failures{}},
		{name: "a failure stops its group only", fail: map[string]error{"a2": errBad},
			wantRounds: [][]string{{"a1", "b1", "c1"}, {"a2", "b2"}}, wantFailures: Failures{"a2": errBad}},
		{name: "a failed head", fail: map[string]error{"b1": errBad, "c1": errBad},
			wantRounds: [][]string{{"a1", "b1", "c1"}, {"a2"}, {"a3"}}, wantFailures: Failures{"b1": errBad, "c1": errBad}},
		{name: "near the deadline", roomFor: 2, wantRounds: [][]string{{"a1", "b1", "c1"}, {"a2", "b2"}},
			wantFailures: Failures{"a3": ErrNotStarted}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := testclock.At(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			ctx := context.Background()
			if tc.roomFor > 0 {
				ctx = withStartBy(ctx, clock.Now().Add(time.Duration(tc.roomFor)*time.Second), clock.Now)
			}
			var rounds [][]string
			failures := Failures{}
			Rounds(ctx, Groups(batch(1, "a1", "b1", "c1", "a2", "b2", "a3").Records), failures,
				func(_ context.Context, msgs []events.SQSMessage) []error {
					var ids []string
					errs := make([]error, len(msgs))
					for i, m := range msgs {
						ids = append(ids, m.MessageId)
						errs[i] = tc.fail[m.MessageId]
					}
					rounds = append(rounds, ids)
					clock.Advance(time.Second)
					return errs
				})
			if !reflect.DeepEqual(rounds, tc.wantRounds) {
				t.Errorf("rounds %v, want %v", rounds, tc.wantRounds)
			}
			if !reflect.DeepEqual(failures, tc.wantFailures) {
				t.Errorf("failures %v, want %v", failures, tc.wantFailures)
			}
		})
	}
}
