package accountseries

import (
	"fmt"
	"maps"
	"slices"

	"github.com/subsight/subsight/shared/store"
)

// maxActionsPerTx leaves room, under DynamoDB's 100 actions, for the guard on the
// customer's record.
const maxActionsPerTx = 99

// maxAttrsPerUpdate keeps an update expression far below DynamoDB's 4 KB.
const maxAttrsPerUpdate = 100

// successor is the record that replaces st for a new version: the difference of the
// cells as pending chunks, and the activities to reconcile with what may be stored.
func successor(st store.SeriesRecord, version string, cells Cells, acts []activity) store.SeriesRecord {
	next := store.SeriesRecord{Exists: true, Version: version, Cells: cells, Pending: chunk(version, cells.minus(st.Cells).updates()),
		Acts: map[string]string{}, ActsPrev: map[string]string{}}
	for _, a := range acts {
		next.Acts[a.sk] = a.hash
	}
	if st.ActsDone || !st.Exists {
		maps.Copy(next.ActsPrev, st.Acts)
	} else {
		// The last reconciliation did not finish: either set may be stored, in any content.
		for k := range st.ActsPrev {
			next.ActsPrev[k] = ""
		}
		for k := range st.Acts {
			next.ActsPrev[k] = ""
		}
	}
	return next
}

// chunk splits additions into transactions: at most maxActionsPerTx actions, an item
// at most once per transaction, at most maxAttrsPerUpdate attributes per action. Chunk
// ids carry the version, so a chunk of one version can never stand for another's.
func chunk(version string, us []store.SeriesBucketAdd) map[string][]store.SeriesBucketAdd {
	var parts []store.SeriesBucketAdd
	for _, u := range us {
		attrs := sortedKeys(u.Add)
		if len(attrs) == 0 {
			parts = append(parts, u) // an index item only marked as present in its shard
		}
		for i := 0; i < len(attrs); i += maxAttrsPerUpdate {
			p := store.SeriesBucketAdd{Segment: u.Segment, SK: u.SK, Add: map[string]int64{}}
			for _, a := range attrs[i:min(i+maxAttrsPerUpdate, len(attrs))] {
				p.Add[a] = u.Add[a]
			}
			parts = append(parts, p)
		}
	}
	out := map[string][]store.SeriesBucketAdd{}
	var cur []store.SeriesBucketAdd
	seen := map[[2]string]bool{}
	flush := func() {
		if len(cur) > 0 {
			out[fmt.Sprintf("%.8s-%03d", version, len(out))] = cur
		}
		cur, seen = nil, map[[2]string]bool{}
	}
	for _, p := range parts {
		id := [2]string{p.Segment, p.SK}
		if len(cur) == maxActionsPerTx || seen[id] {
			flush()
		}
		cur = append(cur, p)
		seen[id] = true
	}
	flush()
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
