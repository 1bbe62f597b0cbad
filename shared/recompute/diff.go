package recompute

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/subsight/subsight/shared/keys"
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
	c.PutSubscriptions, c.Delete = diffRows(prev.Subscriptions, next.Subscriptions, c.Delete)
	c.PutInvalid, c.Delete = diffRows(prev.Invalid, next.Invalid, c.Delete)
	return c
}

// mergeViewChanges is the union of two changes towards the same rows (each puts rows
// of the same next snapshot): a key deleted or put once.
func mergeViewChanges(a, b store.MetricsViewChange) store.MetricsViewChange {
	out := a
	out.PutSubscriptions = unionRows(a.PutSubscriptions, b.PutSubscriptions)
	out.PutInvalid = unionRows(a.PutInvalid, b.PutInvalid)
	for _, k := range b.Delete {
		if !slices.Contains(out.Delete, k) {
			out.Delete = append(out.Delete, k)
		}
	}
	return out
}

func unionRows[T keyed](a, b []T) []T {
	out := slices.Clone(a)
	for _, r := range b {
		if !slices.ContainsFunc(out, func(o T) bool { return o.Key() == r.Key() }) {
			out = append(out, r)
		}
	}
	return out
}

type keyed interface{ Key() keys.Key }

func diffRows[T keyed](prev, next []T, deletes []keys.Key) ([]T, []keys.Key) {
	old := make(map[keys.Key]T, len(prev))
	for _, r := range prev {
		old[r.Key()] = r
	}
	var puts []T
	kept := make(map[keys.Key]bool, len(next))
	for _, r := range next {
		k := r.Key()
		kept[k] = true
		if o, ok := old[k]; !ok || !sameJSON(o, r) {
			puts = append(puts, r)
		}
	}
	for _, r := range prev {
		if k := r.Key(); !kept[k] {
			deletes = append(deletes, k)
			kept[k] = true // a key listed twice is deleted once
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
