package api_test

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/subsight/subsight/shared/api"
)

func (e *resourceEnv) listPlans(accountID string, q url.Values) (int, map[string]any) {
	e.t.Helper()
	return e.do(accountID, api.ListPlans, "GET", plansRoute, nil, q, nil)
}

// planPages follows cursors from the first page and returns every uuid and the
// size of each page.
func (e *resourceEnv) planPages(q url.Values) (uuids []string, sizes []int) {
	e.t.Helper()
	for page := 0; ; page++ {
		status, body := e.listPlans(e.acc, q)
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

func TestListPlans(t *testing.T) {
	e := newResourceEnv(t)
	var inDS, inDS2 []string
	for i := range 7 {
		inDS = append(inDS, e.createPlan(e.ds.UUID, fmt.Sprintf("a-%d", i), "A")["uuid"].(string))
	}
	for i := range 3 {
		ext := fmt.Sprintf("b-%d", i)
		if i == 0 {
			ext = "a-0" // the same external id as a plan of the first source
		}
		inDS2 = append(inDS2, e.createPlan(e.ds2.UUID, ext, "B")["uuid"].(string))
	}
	e.createPlanAs(e.other, e.otherDS.UUID, "a-0")
	all := append(append([]string{}, inDS...), inDS2...)

	tests := []struct {
		name  string
		query url.Values
		want  []string
		sizes []int
	}{
		{"all, creation order", url.Values{"per_page": {"4"}}, all, []int{4, 4, 2}},
		{"one page", nil, all, []int{10}},
		{"data source", url.Values{"data_source_uuid": {e.ds.UUID}, "per_page": {"3"}}, inDS, []int{3, 3, 1}},
		{"external id across sources", url.Values{"external_id": {"a-0"}, "per_page": {"1"}},
			[]string{inDS[0], inDS2[0]}, []int{1, 1}},
		{"external id in a source", url.Values{"external_id": {"a-0"}, "data_source_uuid": {e.ds2.UUID}},
			[]string{inDS2[0]}, []int{1}},
		{"system Custom", url.Values{"system": {"Custom"}, "per_page": {"6"}}, all, []int{6, 4}},
		{"system by name", url.Values{"system": {"Import API"}, "data_source_uuid": {e.ds2.UUID}}, inDS2, []int{3}},
		{"other system", url.Values{"system": {"Stripe"}}, nil, []int{0}},
		{"another account's data source", url.Values{"data_source_uuid": {e.otherDS.UUID}}, nil, []int{0}},
		{"unknown external id", url.Values{"external_id": {"zzz"}}, nil, []int{0}},
		{"malformed data source", url.Values{"data_source_uuid": {"x#y"}}, nil, []int{0}},
		{"oversized external id", url.Values{"external_id": {strings.Repeat("e", 3000)}}, nil, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sizes := e.planPages(tt.query)
			if !reflect.DeepEqual(got, tt.want) && (len(got) != 0 || len(tt.want) != 0) {
				t.Errorf("uuids\n got %v\nwant %v", got, tt.want)
			}
			if !reflect.DeepEqual(sizes, tt.sizes) {
				t.Errorf("page sizes %v, want %v", sizes, tt.sizes)
			}
		})
	}

	t.Run("first page carries the legacy fields", func(t *testing.T) {
		_, body := e.listPlans(e.acc, url.Values{"per_page": {"4"}})
		if body["current_page"] != 1.0 || body["total_pages"] != 3.0 {
			t.Errorf("current_page %v total_pages %v", body["current_page"], body["total_pages"])
		}
		_, empty := e.listPlans(e.acc, url.Values{"external_id": {"none"}})
		if empty["total_pages"] != 0.0 || empty["cursor"] != nil || empty["has_more"] != false {
			t.Errorf("empty listing %v", empty)
		}
	})

	t.Run("another account sees none of them", func(t *testing.T) {
		_, body := e.listPlans(e.other, nil)
		if n := len(body["plans"].([]any)); n != 1 {
			t.Errorf("other account lists %d plans, want its own 1", n)
		}
	})

	_, first := e.listPlans(e.acc, url.Values{"per_page": {"2"}})
	cursor := first["cursor"].(string)
	cursorTests := []struct {
		name    string
		account string
		query   url.Values
	}{
		{"tampered", e.acc, url.Values{"cursor": {tamper(cursor)}}},
		{"garbage", e.acc, url.Values{"cursor": {"not-a-cursor"}}},
		{"another account's key", e.other, url.Values{"cursor": {cursor}}},
		{"another filter", e.acc, url.Values{"cursor": {cursor}, "data_source_uuid": {e.ds.UUID}}},
	}
	for _, tt := range cursorTests {
		t.Run("cursor "+tt.name, func(t *testing.T) {
			status, body := e.listPlans(tt.account, tt.query)
			if status != 400 {
				t.Fatalf("status %d %v", status, body)
			}
			assertBody(t, body, familyB("Invalid cursor", "cursor"))
		})
	}
	t.Run("bad per_page", func(t *testing.T) {
		if status, body := e.listPlans(e.acc, url.Values{"per_page": {"0"}}); status != 400 {
			t.Fatalf("status %d %v", status, body)
		}
	})
}

func (e *resourceEnv) createPlanAs(accountID, dsUUID, externalID string) {
	e.t.Helper()
	status, body := e.do(accountID, api.CreatePlan, "POST", plansRoute, nil, nil, map[string]any{
		"data_source_uuid": dsUUID, "name": "Theirs", "interval_count": 1, "interval_unit": "month", "external_id": externalID})
	if status != 201 {
		e.t.Fatalf("create: %d %v", status, body)
	}
}

// tamper flips one character of a cursor's payload, keeping its signature.
func tamper(cursor string) string {
	b := []byte(cursor)
	i := len(b) / 4
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}
