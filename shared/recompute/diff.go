package recompute

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/subsight/subsight/shared/store"
)

// viewChange is the smallest set of writes turning the rows of prev into those of next:
// rows whose key vanished are deleted, rows that are new or differ are put, equal rows
// are left alone.
func viewChange(prev, next *snapshot) store.MetricsViewChange {
	var c store.MetricsViewChange
	if prev == nil {
		prev = &snapshot{}
	}
	c.PutSubscriptions, c.DeleteSubscriptions = diffRows(prev.Subscriptions, next.Subscriptions)
	c.PutInvalid, c.DeleteInvalid = diffRows(prev.Invalid, next.Invalid)
	return c
}

// mergeViewChanges is the union of two changes towards the same rows (each puts rows
// of the same next snapshot): a row deleted or put once.
func mergeViewChanges(a, b store.MetricsViewChange) store.MetricsViewChange {
	out := a
	out.PutSubscriptions = unionRows(a.PutSubscriptions, b.PutSubscriptions)
	out.PutInvalid = unionRows(a.PutInvalid, b.PutInvalid)
	out.DeleteSubscriptions = unionRows(a.DeleteSubscriptions, b.DeleteSubscriptions)
	out.DeleteInvalid = unionRows(a.DeleteInvalid, b.DeleteInvalid)
	return out
}

func unionRows[T identified](a, b []T) []T {
	out := slices.Clone(a)
	for _, r := range b {
		if !slices.ContainsFunc(out, func(o T) bool { return o.Identity() == r.Identity() }) {
			out = append(out, r)
		}
	}
	return out
}

// identified is a row of a view, identified among the account's by Identity.
type identified interface{ Identity() [3]string }

func diffRows[T identified](prev, next []T) (puts, deletes []T) {
	old := make(map[[3]string]T, len(prev))
	for _, r := range prev {
		old[r.Identity()] = r
	}
	kept := make(map[[3]string]bool, len(next))
	for _, r := range next {
		id := r.Identity()
		kept[id] = true
		if o, ok := old[id]; !ok || !sameJSON(o, r) {
			puts = append(puts, r)
		}
	}
	for _, r := range prev {
		if id := r.Identity(); !kept[id] {
			deletes = append(deletes, r)
			kept[id] = true // a row listed twice is deleted once
		}
	}
	return puts, deletes
}

// sameJSON compares rows as they are stored (times by instant, not by representation).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
