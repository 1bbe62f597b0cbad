package jobs

import (
	"encoding/json"
	"testing"
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
			if err != nil || got != tt.m {
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
