package imports_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/queue"
	"github.com/subsight/subsight/shared/store"
)

// withWindow gives the fixture's pipeline a lane window of w.
func (f *fixture) withWindow(w int) {
	lanes := *f.p.Lanes
	lanes.Window = w
	f.p.Lanes = &lanes
}

// queued is how many messages wait in the import queue (none in flight in these tests).
func (f *fixture) queued(t *testing.T) int {
	t.Helper()
	out, err := f.env.Deps.Clients.SQS.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(f.env.ImportQueueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	return n
}

// renamed is a payload whose invoices, line items and transactions get other external
// ids, so that a second import of the same customers adds records.
func renamed(p map[string]any, suffix string) map[string]any {
	for _, kind := range []string{"invoices", "line_items", "transactions"} {
		for _, r := range p[kind].([]any) {
			r := r.(map[string]any)
			for _, k := range []string{"external_id", "invoice_external_id"} {
				if v, ok := r[k].(string); ok {
					r[k] = v + suffix
				}
			}
		}
	}
	return p
}

func TestLaneFeedsAtMostTheWindowAndRedeliveriesSendNothingMore(t *testing.T) {
	for _, tc := range []struct {
		name              string
		window, customers int
		wantQueued        int
	}{
		{"import larger than the window", 4, 23, 4},
		{"window across chunks", 60, 120, 60},
		{"import smaller than the window", 300, 7, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t)
			f.withWindow(tc.window)
			imp := f.accept(t, payload("w", tc.customers, 1, 1000))
			for range 3 { // the first feed, then two redeliveries of it
				f.feed(t)
				if n := f.queued(t); n != tc.wantQueued {
					t.Fatalf("import queue holds %d, want %d", n, tc.wantQueued)
				}
			}
			if n := f.drain(t); n != tc.customers {
				t.Fatalf("applied %d, want %d", n, tc.customers)
			}
			if pr := progress(t, f, imp); pr.Status != model.ImportCompleted {
				t.Fatalf("progress %+v", pr)
			}
		})
	}
}

func TestLaneKeepsEachCustomersOrderAcrossImportsOfOneAccount(t *testing.T) {
	for _, window := range []int{1, 3, 7, 300} {
		t.Run("window "+strconv.Itoa(window), func(t *testing.T) {
			f := setup(t)
			f.withWindow(window)
			first := f.accept(t, payload("first", 5, 1, 1000))
			f.feed(t) // the first import only partly fed when the second arrives
			second := f.accept(t, renamed(payload("second", 5, 1, 2000), "-2"))
			applied := map[string][]string{} // customer -> import ids, in the order applied
			next := f.handler
			f.handler = func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				resp, err := next(ctx, ev)
				failed := map[string]bool{}
				for _, x := range resp.BatchItemFailures {
					failed[x.ItemIdentifier] = true
				}
				for _, r := range ev.Records {
					if m, derr := imports.DecodeMessage(r.Body); derr == nil && !failed[r.MessageId] {
						applied[m.CustomerExternalID] = append(applied[m.CustomerExternalID], m.ImportID)
					}
				}
				return resp, err
			}
			if n := f.drain(t); n != 10 {
				t.Fatalf("applied %d, want 10", n)
			}
			for c := range 5 {
				got := applied["cus-"+strconv.Itoa(c)]
				if len(got) != 2 || got[0] != first.ID || got[1] != second.ID {
					t.Fatalf("cus-%d applied %v, want [%s %s]", c, got, first.ID, second.ID)
				}
			}
		})
	}
}

func TestLaneSlotOfACustomerFailedForGoodIsFreed(t *testing.T) {
	f := setup(t)
	f.withWindow(1)
	f.p.AfterWrite = func(string) error { return errors.New("always failing") }
	imp := f.accept(t, payload("fail", 2, 1, 1000))
	for range 20 { // maxReceiveCount in template.yaml: the last receive marks it failed
		f.drainOnce(t)
	}
	f.drainOnce(t) // the first customer is in the dead-letter queue now
	f.p.AfterWrite = nil
	if n := f.drain(t); n != 1 {
		t.Fatalf("applied %d after the failure, want the second customer", n)
	}
	pr := progress(t, f, imp)
	if pr.Status != model.ImportCompleted || len(pr.Customers) != 2 {
		t.Fatalf("progress %+v", pr)
	}
}

func TestLaneTakesAnImportOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		drain bool // the feeder has sent it all and removed it from the lane
	}{{"still in the lane", false}, {"already fed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t)
			imp := f.accept(t, payload("once", 3, 1, 1000))
			if tc.drain {
				f.drain(t)
			}
			ctx := context.Background()
			before, err := f.env.Deps.Store.ReadLane(ctx, f.acc.ID)
			if err != nil {
				t.Fatal(err)
			}
			// What an intake retried after its lane step would write again.
			again := store.LaneImport{Seq: before.Sent + 1000, ImportID: imp.ID, ChunkPrefix: "imports/again/", Total: 3}
			stored, err := f.env.Deps.Store.GetImport(ctx, f.acc.ID, f.ds.UUID, imp.ExternalID)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.env.Deps.Store.AddLaneImport(ctx, stored, again); err != nil {
				t.Fatal(err)
			}
			after, err := f.env.Deps.Store.ReadLane(ctx, f.acc.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Imports) != len(before.Imports) {
				t.Fatalf("lane imports %+v, before the retry %+v", after.Imports, before.Imports)
			}
		})
	}
}

// lostAdvance applies the lane's advances but answers the first one with a conflict,
// as the retry of a transaction whose answer was lost does.
type lostAdvance struct {
	imports.Storage
	lost bool
}

func (s *lostAdvance) AdvanceLane(ctx context.Context, accountID string, imp store.LaneImport, next int) error {
	if err := s.Storage.AdvanceLane(ctx, accountID, imp, next); err != nil || s.lost {
		return err
	}
	s.lost = true
	return store.ErrConflict
}

// feedsSent counts the feed messages a pipeline sends.
type feedsSent struct{ n int }

func (f *feedsSent) Send(context.Context, queue.Message) error        { f.n++; return nil }
func (f *feedsSent) SendBatch(context.Context, []queue.Message) error { return nil }

func TestLaneGoesOnWhenItsAdvanceAnswersAConflict(t *testing.T) {
	f := setup(t)
	f.withWindow(4)
	feeds := &feedsSent{}
	f.p.Lanes.Feeds = feeds
	f.accept(t, payload("lost", 23, 1, 1000))
	feeds.n = 0 // the intake's own feed message
	f.p.Store = &lostAdvance{Storage: f.p.Store}
	f.feed(t)
	if n := f.queued(t); n != 4 {
		t.Fatalf("import queue holds %d, want 4", n)
	}
	if feeds.n != 1 {
		t.Fatalf("%d feed messages sent after the conflicting advance, want 1: nobody would feed the lane", feeds.n)
	}
}
