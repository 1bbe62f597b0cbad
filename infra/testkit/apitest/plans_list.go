package apitest

import (
	"net/url"
)

func (e *ResourceEnv) ListPlans(accountID string, q url.Values) (int, map[string]any) {
	e.t.Helper()
	return e.Do(accountID, "ListPlans", nil, q, nil)
}

// PlanPages follows cursors from the first page and returns every uuid and the
// size of each page.
func (e *ResourceEnv) PlanPages(q url.Values) (uuids []string, sizes []int) {
	e.t.Helper()
	for page := 0; ; page++ {
		status, body := e.ListPlans(e.Acc, q)
		if status != 200 {
			e.t.Fatalf("page %d: %d %v", page, status, body)
		}
		_, legacy := body["current_page"]
		if legacy != (page == 0) {
			e.t.Fatalf("page %d: current_page present = %v", page, legacy)
		}
		plans := body["plans"].([]any)
		sizes = append(sizes, len(plans))
		for _, p := range plans {
			uuids = append(uuids, p.(map[string]any)["uuid"].(string))
		}
		if body["has_more"] != true {
			return uuids, sizes
		}
		q = cloneValues(q)
		q.Set("cursor", body["cursor"].(string))
	}
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func (e *ResourceEnv) CreatePlanAs(accountID, dsUUID, externalID string) {
	e.t.Helper()
	status, body := e.Do(accountID, "CreatePlan", nil, nil, map[string]any{
		"data_source_uuid": dsUUID, "name": "Theirs", "interval_count": 1, "interval_unit": "month", "external_id": externalID})
	if status != 201 {
		e.t.Fatalf("create: %d %v", status, body)
	}
}

// Tamper flips one character of a cursor's payload, keeping its signature.
func Tamper(cursor string) string {
	b := []byte(cursor)
	i := len(b) / 4
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}
