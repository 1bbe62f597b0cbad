package apitest

import (
	"maps"
	"net/url"
	"reflect"
	"slices"
)

func (e *ResourceEnv) ListNotes(accountID string, q url.Values) (int, map[string]any) {
	e.t.Helper()
	return e.Do(accountID, "ListCustomerNotes", nil, q, nil)
}

// NotePages follows cursors and returns every uuid and each page's size.
func (e *ResourceEnv) NotePages(q url.Values) (uuids []string, sizes []int) {
	e.t.Helper()
	for {
		status, body := e.ListNotes(e.Acc, q)
		if status != 200 {
			e.t.Fatalf("%d %v", status, body)
		}
		if keys := slices.Sorted(maps.Keys(body)); !reflect.DeepEqual(keys, []string{"cursor", "entries", "has_more"}) {
			e.t.Fatalf("keys %v", keys)
		}
		entries := body["entries"].([]any)
		sizes = append(sizes, len(entries))
		for _, n := range entries {
			uuids = append(uuids, n.(map[string]any)["uuid"].(string))
		}
		if body["has_more"] != true {
			return uuids, sizes
		}
		q = cloneValues(q)
		q.Set("cursor", body["cursor"].(string))
	}
}
