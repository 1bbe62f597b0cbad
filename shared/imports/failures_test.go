package imports_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/testkit/testclock"
	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/workers"
)

// batchOf is one customer's messages of the imports, in order, on the given receive.
func batchOf(t *testing.T, f *fixture, receive int, msgs ...imports.Message) events.SQSEvent {
	var ev events.SQSEvent
	for i, m := range msgs {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: "m" + itoa(i+1), Body: mustJSON(t, m),
			Attributes: map[string]string{"ApproximateReceiveCount": itoa(receive), "MessageGroupId": m.Group()}})
	}
	return ev
}

func failedIDs(resp events.SQSEventResponse) []string {
	var out []string
	for _, f := range resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// customerStatus is cus-0's entry in the import's progress ("" without one).
func customerStatus(t *testing.T, f *fixture, imp model.Import) string {
	for _, c := range progress(t, f, imp).Customers {
		if c.ExternalID == "cus-0" {
			return c.Status
		}
	}
	return ""
}

// TestImportLaterMessageBehindAPoisonedOneIsTried: a customer's message that fails on
// every receive (its part is not the customer's) holds its later message back, as FIFO
// order asks, until its last receive; there the poisoned one is marked failed and the
// later one is applied on its own instead of reaching the dead-letter queue untried.
func TestImportLaterMessageBehindAPoisonedOneIsTried(t *testing.T) {
	tests := []struct {
		name          string
		receive       int
		failed        []string
		first, second string // cus-0's status in each import
	}{
		{name: "an early receive: both wait", receive: 2, failed: []string{"m1", "m2"}},
		{name: "the last receive: the later one is tried", receive: 3, failed: []string{"m1"},
			first: model.RecordsFailed, second: model.RecordsImported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t)
			first := f.accept(t, payload("poisoned", 1, 1, 1000))
			second := f.accept(t, payload("later", 1, 1, 2000))
			poisoned := messageOf(f, first, "cus-0")
			poisoned.Index = 7 // no such customer in the part: fails on every receive
			resp, err := workers.ImportWith(f.p, 3, awsclients.Throttled)(context.Background(),
				batchOf(t, f, tc.receive, poisoned, messageOf(f, second, "cus-0")))
			if err != nil {
				t.Fatal(err)
			}
			if got := failedIDs(resp); !reflect.DeepEqual(got, tc.failed) {
				t.Errorf("failed %v, want %v", got, tc.failed)
			}
			if got := customerStatus(t, f, first); got != tc.first {
				t.Errorf("poisoned import: cus-0 %q, want %q", got, tc.first)
			}
			if got := customerStatus(t, f, second); got != tc.second {
				t.Errorf("later import: cus-0 %q, want %q", got, tc.second)
			}
		})
	}
}

// TestImportDeadlineMidBatch: writes slow enough (on the invocation's fake clock) that
// the deadline comes near after the first round: the customer's later messages are
// not started, reported failed and not marked failed, except on their last receive,
// where they would reach the dead-letter queue untried.
func TestImportDeadlineMidBatch(t *testing.T) {
	tests := []struct {
		name    string
		receive int
		later   string // cus-0's status in the imports not started
	}{
		{name: "an early receive", receive: 1},
		{name: "the last receive", receive: 3, later: model.RecordsFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t)
			var imps []model.Import
			var msgs []imports.Message
			for _, id := range []string{"one", "two", "three"} {
				imp := f.accept(t, payload(id, 1, 1, 1000))
				imps, msgs = append(imps, imp), append(msgs, messageOf(f, imp, "cus-0"))
			}
			clock := testclock.At(time.Now())
			f.p.AfterWrite = func(string) error {
				clock.Advance(20 * time.Second) // a slow write
				return nil
			}
			ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(time.Minute))
			defer cancel()
			resp, err := workers.ImportAt(f.p, 3, awsclients.Throttled, clock.Now)(ctx, batchOf(t, f, tc.receive, msgs...))
			if err != nil {
				t.Fatal(err)
			}
			if got := failedIDs(resp); !reflect.DeepEqual(got, []string{"m2", "m3"}) {
				t.Errorf("failed %v, want [m2 m3]", got)
			}
			if got := customerStatus(t, f, imps[0]); got != model.RecordsImported {
				t.Errorf("first import: cus-0 %q, want imported", got)
			}
			for _, imp := range imps[1:] {
				if got := customerStatus(t, f, imp); got != tc.later {
					t.Errorf("import %s: cus-0 %q, want %q", imp.ExternalID, got, tc.later)
				}
			}
		})
	}
}
