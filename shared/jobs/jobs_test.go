package jobs

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/subsight/subsight/shared/queue"
)

func TestConstructorsRoundTrip(t *testing.T) {
	tests := []struct {
		name      string
		m         Message
		wantType  string
		wantGroup string
	}{
		{"purge", Purge("acc_1", "ds_1"), PurgeDataSource, "acc_1#ds_1"},
		{"recompute", Recompute("acc_1", "cus_1", "import-7"), RecomputeCustomer, "acc_1#cus_1"},
		{"merge", Merge("acc_1", "cus_into", "cus_from"), MergeCustomers, "acc_1#cus_into"},
		{"fold: one group per account", Fold("acc_1", 7, []string{"all", "plan:pl_1"}, "m-1"), FoldSeries, "acc_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.m.Type != tt.wantType || tt.m.Group() != tt.wantGroup {
				t.Fatalf("type %q group %q, want %q %q", tt.m.Type, tt.m.Group(), tt.wantType, tt.wantGroup)
			}
			body, err := json.Marshal(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(string(body))
			if err != nil || !reflect.DeepEqual(got, tt.m) {
				t.Fatalf("decoded %+v, %v; want %+v", got, err, tt.m)
			}
		})
	}
	// The reason tells two requests for the same customer apart; the same reason is deduplicated.
	a, b := Recompute("acc_1", "cus_1", "edit:v1"), Recompute("acc_1", "cus_1", "edit:v2")
	if a.DedupID() == b.DedupID() || a.DedupID() != Recompute("acc_1", "cus_1", "edit:v1").DedupID() {
		t.Fatal("dedup ids do not follow the reason")
	}
}

// TestBulkQueueStampsItsLane: jobs sent through the bulk lane's queue say so, those of
// the jobs queue do not.
func TestBulkQueueStampsItsLane(t *testing.T) {
	for _, tt := range []struct{ name, lane string }{{"jobs queue", ""}, {"bulk lane", Bulk}} {
		var sent sentMessages
		q := NewQueue(&sent)
		if tt.lane == Bulk {
			q = NewBulkQueue(&sent)
		}
		if err := q.SendBatch(context.Background(), []Message{Recompute("acc_1", "cus_1", "import-7")}); err != nil {
			t.Fatal(err)
		}
		if err := q.Send(context.Background(), Recompute("acc_1", "cus_2", "import-7")); err != nil {
			t.Fatal(err)
		}
		for _, m := range sent {
			got, err := Decode(m.Body)
			if err != nil || got.Lane != tt.lane {
				t.Errorf("%s: lane %q (%v), want %q", tt.name, got.Lane, err, tt.lane)
			}
		}
	}
}

// sentMessages is a queue.FIFO that keeps what it is sent.
type sentMessages []queue.Message

func (s *sentMessages) Send(_ context.Context, m queue.Message) error {
	*s = append(*s, m)
	return nil
}

func (s *sentMessages) SendBatch(_ context.Context, ms []queue.Message) error {
	*s = append(*s, ms...)
	return nil
}
