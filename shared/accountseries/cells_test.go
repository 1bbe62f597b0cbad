package accountseries

import (
	"fmt"
	"testing"
	"time"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/series"
)

// utc is the calendar of testenv accounts: UTC, weeks starting on Monday.
var utc = series.Calendar{Location: time.UTC, WeekStart: time.Monday}

func TestCustomerCellsSegments(t *testing.T) {
	a := portfolio()[0]
	cells := customerCells(series.Customer{UUID: a.Attrs.UUID, Country: "US", Movements: a.Movements}, utc)
	tests := []struct {
		segment, sk, attr string
		want              int64
	}{
		{segmentAll, keys.SeriesMonthSK("2024-01"), "n05", 1000},
		{segmentAll, keys.SeriesMonthSK("2024-01"), "c05", 1},
		{segmentAll, keys.SeriesMonthSK("2024-01"), "f05", 1},
		{segmentAll, keys.SeriesMonthSK("2024-02"), "e10", 500},
		{segmentAll, keys.SeriesYearSK("2024"), "m01", 1000},
		{segmentAll, keys.SeriesYearSK("2024"), "m02", 500},
		{segmentAll, keys.SeriesIndexSK, "m2024", 1500},
		{segmentAll, keys.SeriesIndexSK, "c2024", 1},
		{"geo:US", keys.SeriesMonthSK("2024-02"), "e10", 500},
		{"plan:P1", keys.SeriesMonthSK("2024-02"), "e10", 500},
		{"geo:US:plan:P1", keys.SeriesIndexSK, "m2024", 1500},
	}
	for _, tt := range tests {
		if got := cells[cellKey(tt.segment, tt.sk, tt.attr)]; got != tt.want {
			t.Errorf("%s %s %s = %d, want %d", tt.segment, tt.sk, tt.attr, got, tt.want)
		}
	}
	// Without a valid country, only "all" and plan segments.
	cells = customerCells(series.Customer{UUID: "x", Country: "usa", Movements: a.Movements}, utc)
	for k := range cells {
		if seg, _, _ := splitCell(k); seg != segmentAll && seg != "plan:P1" {
			t.Errorf("unexpected segment %s", seg)
		}
	}
}

func TestChunkLimits(t *testing.T) {
	cells := Cells{}
	for i := range 250 {
		cells.add(cellKey(segmentAll, keys.SeriesMonthSK("2024-01"), fmt.Sprintf("x%03d", i)), 1) // one wide item
		cells.add(cellKey(fmt.Sprintf("plan:%d", i), keys.SeriesIndexSK, "m2024"), 1)             // many items
	}
	chunks := chunk("abcdef0123", cells.updates())
	total := 0
	for id, us := range chunks {
		if len(us) > maxActionsPerTx {
			t.Errorf("chunk %s has %d actions", id, len(us))
		}
		seen := map[string]bool{}
		for _, u := range us {
			if seen[u.Segment+u.SK] {
				t.Errorf("chunk %s updates %s %s twice", id, u.Segment, u.SK)
			}
			seen[u.Segment+u.SK] = true
			if len(u.Add) > maxAttrsPerUpdate {
				t.Errorf("update of %d attributes", len(u.Add))
			}
			total += len(u.Add)
		}
	}
	if total != 500 {
		t.Fatalf("chunks carry %d numbers, want 500", total)
	}
}

// TestUpdatesMarkEverySegmentsIndex: a difference that touches a segment's months but
// not its index still updates the index item first (with nothing to add), so that the
// shard it goes to shows the segment to readers; chunks keep the empty update.
func TestUpdatesMarkEverySegmentsIndex(t *testing.T) {
	diff := Cells{}
	diff.add(cellKey("plan:P1", keys.SeriesMonthSK("2024-03"), "e10"), -500)
	diff.add(cellKey(segmentAll, keys.SeriesIndexSK, "m2024"), 100)
	diff.add(cellKey(segmentAll, keys.SeriesMonthSK("2024-03"), "n01"), 100)
	got := fmt.Sprint(diff.updates())
	want := "[{all I map[m2024:100]} {all M#2024-03 map[n01:100]} {plan:P1 I map[]} {plan:P1 M#2024-03 map[e10:-500]}]"
	if got != want {
		t.Errorf("updates %s, want %s", got, want)
	}
	n := 0
	for _, c := range chunk("v", diff.updates()) {
		n += len(c)
	}
	if n != 4 {
		t.Errorf("chunks hold %d updates, want 4", n)
	}
}
