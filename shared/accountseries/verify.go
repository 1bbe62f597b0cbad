package accountseries

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/store"
)

// Tally sums what customers contribute to the series, from their engine results,
// without storing anything: the reference Verify compares the stored buckets with.
type Tally struct {
	cal       series.Calendar
	cells     Cells
	customers int
	mrr       int64 // the customers' MRR now, by their results
	paying    int64 // customers whose MRR now is positive
}

// NewTally starts an empty tally in the account's calendar.
func NewTally(cal series.Calendar) *Tally { return &Tally{cal: cal, cells: Cells{}} }

// Add counts one customer's result (nil: no movements).
func (t *Tally) Add(result *engine.Result, c CustomerAttrs) {
	sc := seriesCustomer(result, c)
	for k, v := range customerCells(sc, t.cal) {
		t.cells.add(k, v)
	}
	t.customers++
	if result != nil && result.MRR != 0 {
		t.mrr += result.MRR
		if result.MRR > 0 {
			t.paying++
		}
	}
}

// Difference is one stored number that is not what the customers add up to.
type Difference struct {
	Segment, SK, Attr string
	Stored, Expected  int64
}

func (d Difference) String() string {
	return fmt.Sprintf("segment %s item %s attribute %s: stored %d, customers add up to %d", d.Segment, d.SK, d.Attr, d.Stored, d.Expected)
}

// Verification is what Verify found.
type Verification struct {
	Customers int
	Segments  int
	Numbers   int // stored numbers compared
	// Unfolded is how many of them bulk shards hold, not yet in the read copy that
	// metrics requests read (a recomputation in flight).
	Unfolded    int
	Differences []Difference
	// The "all" segment's totals over every year (its index item: the net MRR and
	// customers changes of every real movement) against the customers' results: their
	// MRR now and how many of them pay.
	SeriesMRR, CustomersMRR       int64
	SeriesPaying, CustomersPaying int64
}

// OK reports whether the stored series are exactly the customers' sum, all of it in
// the read copy.
func (v Verification) OK() bool {
	return len(v.Differences) == 0 && v.Unfolded == 0 && v.SeriesMRR == v.CustomersMRR && v.SeriesPaying == v.CustomersPaying
}

// Every bucket sort key (index, year, month and registry items) lies in ["0", "~"].

// Verify reads every bucket item of every segment the tallied customers contribute to
// (and of the "all" segment) and compares each number with the tally: a number stored
// but not expected, expected but missing, or different, is a Difference. Segments no
// tallied customer contributes to are not read. With fold, every bulk shard of those
// segments is folded into the read copy first (after an upgrade from the layout that
// spread every customer over the shards).
func (s *Series) Verify(ctx context.Context, accountID string, t *Tally, fold bool) (Verification, error) {
	segments := map[string]bool{segmentAll: true}
	for k := range t.cells {
		seg, _, _ := splitCell(k)
		segments[seg] = true
	}
	if fold {
		names := slices.Sorted(maps.Keys(segments))
		parts := make([]store.SeriesShardPart, 0, keys.SeriesShards-1)
		for shard := 1; shard < keys.SeriesShards; shard++ {
			parts = append(parts, store.SeriesShardPart{Shard: shard, Segments: names})
		}
		if err := s.Fold(ctx, accountID, parts); err != nil {
			return Verification{}, err
		}
	}
	v := Verification{Customers: t.customers, Segments: len(segments), CustomersMRR: t.mrr, CustomersPaying: t.paying}
	stored := Cells{}
	for _, seg := range slices.Sorted(maps.Keys(segments)) {
		copied, unfolded, err := s.store.SeriesBucketsBetween(ctx, accountID, seg, "0", "~")
		if err != nil {
			return v, err
		}
		for _, b := range unfolded {
			v.Unfolded += len(b.Values)
		}
		for _, b := range append(copied, unfolded...) {
			for attr, x := range b.Values {
				stored.add(cellKey(seg, b.SK, attr), x)
				v.Numbers++
				if seg == segmentAll && b.SK == keys.SeriesIndexSK {
					switch attr[:1] {
					case attrMRRNet:
						v.SeriesMRR += x
					case attrCustomers:
						v.SeriesPaying += x
					}
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(joinCells(stored, t.cells))) {
		if stored[k] != t.cells[k] {
			seg, sk, attr := splitCell(k)
			v.Differences = append(v.Differences, Difference{Segment: seg, SK: sk, Attr: attr, Stored: stored[k], Expected: t.cells[k]})
		}
	}
	return v, nil
}

func joinCells(a, b Cells) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// Report renders a verification for people.
func (v Verification) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d customers, %d segments, %d stored numbers compared\n", v.Customers, v.Segments, v.Numbers)
	if v.Unfolded > 0 {
		fmt.Fprintf(&b, "%d of them in bulk shards, not folded into the read copy yet\n", v.Unfolded)
	}
	fmt.Fprintf(&b, "net MRR: series %d, customers %d; paying customers: series %d, customers %d\n",
		v.SeriesMRR, v.CustomersMRR, v.SeriesPaying, v.CustomersPaying)
	for _, d := range v.Differences {
		b.WriteString(d.String() + "\n")
	}
	if v.OK() {
		b.WriteString("the stored series are exactly the customers' sum\n")
	} else {
		fmt.Fprintf(&b, "%d differences\n", len(v.Differences))
	}
	return b.String()
}
