package billing_test

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

func TestListPlans(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	var inDS, inDS2 []string
	for i := range 7 {
		inDS = append(inDS, e.CreatePlan(e.DS.UUID, fmt.Sprintf("a-%d", i), "A")["uuid"].(string))
	}
	for i := range 3 {
		ext := fmt.Sprintf("b-%d", i)
		if i == 0 {
			ext = "a-0" // the same external id as a plan of the first source
		}
		inDS2 = append(inDS2, e.CreatePlan(e.DS2.UUID, ext, "B")["uuid"].(string))
	}
	e.CreatePlanAs(e.Other, e.OtherDS.UUID, "a-0")
	all := append(append([]string{}, inDS...), inDS2...)

	tests := []struct {
		name  string
		query url.Values
		want  []string
		sizes []int
	}{
		{"all, creation order", url.Values{"per_page": {"4"}}, all, []int{4, 4, 2}},
		{"one page", nil, all, []int{10}},
		{"data source", url.Values{"data_source_uuid": {e.DS.UUID}, "per_page": {"3"}}, inDS, []int{3, 3, 1}},
		{"external id across sources", url.Values{"external_id": {"a-0"}, "per_page": {"1"}},
			[]string{inDS[0], inDS2[0]}, []int{1, 1}},
		{"external id in a source", url.Values{"external_id": {"a-0"}, "data_source_uuid": {e.DS2.UUID}},
			[]string{inDS2[0]}, []int{1}},
		{"system Custom", url.Values{"system": {"Custom"}, "per_page": {"6"}}, all, []int{6, 4}},
		{"system by name", url.Values{"system": {"Import API"}, "data_source_uuid": {e.DS2.UUID}}, inDS2, []int{3}},
		{"other system", url.Values{"system": {"Stripe"}}, nil, []int{0}},
		{"another account's data source", url.Values{"data_source_uuid": {e.OtherDS.UUID}}, nil, []int{0}},
		{"unknown external id", url.Values{"external_id": {"zzz"}}, nil, []int{0}},
		{"malformed data source", url.Values{"data_source_uuid": {"x#y"}}, nil, []int{0}},
		{"oversized external id", url.Values{"external_id": {strings.Repeat("e", 3000)}}, nil, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sizes := e.PlanPages(tt.query)
			if !reflect.DeepEqual(got, tt.want) && (len(got) != 0 || len(tt.want) != 0) {
				t.Errorf("uuids\n got %v\nwant %v", got, tt.want)
			}
			if !reflect.DeepEqual(sizes, tt.sizes) {
				t.Errorf("page sizes %v, want %v", sizes, tt.sizes)
			}
		})
	}

	t.Run("first page carries the legacy fields", func(t *testing.T) {
		_, body := e.ListPlans(e.Acc, url.Values{"per_page": {"4"}})
		if body["current_page"] != 1.0 || body["total_pages"] != 3.0 {
			t.Errorf("current_page %v total_pages %v", body["current_page"], body["total_pages"])
		}
		_, empty := e.ListPlans(e.Acc, url.Values{"external_id": {"none"}})
		if empty["total_pages"] != 0.0 || empty["cursor"] != nil || empty["has_more"] != false {
			t.Errorf("empty listing %v", empty)
		}
	})

	t.Run("another account sees none of them", func(t *testing.T) {
		_, body := e.ListPlans(e.Other, nil)
		if n := len(body["plans"].([]any)); n != 1 {
			t.Errorf("other account lists %d plans, want its own 1", n)
		}
	})

	_, first := e.ListPlans(e.Acc, url.Values{"per_page": {"2"}})
	cursor := first["cursor"].(string)
	cursorTests := []struct {
		name    string
		account string
		query   url.Values
	}{
		{"tampered", e.Acc, url.Values{"cursor": {apitest.Tamper(cursor)}}},
		{"garbage", e.Acc, url.Values{"cursor": {"not-a-cursor"}}},
		{"another account's key", e.Other, url.Values{"cursor": {cursor}}},
		{"another filter", e.Acc, url.Values{"cursor": {cursor}, "data_source_uuid": {e.DS.UUID}}},
	}
	for _, tt := range cursorTests {
		t.Run("cursor "+tt.name, func(t *testing.T) {
			status, body := e.ListPlans(tt.account, tt.query)
			if status != 400 {
				t.Fatalf("status %d %v", status, body)
			}
			apitest.AssertBody(t, body, familyB("Invalid cursor", "cursor"))
		})
	}
	t.Run("bad per_page", func(t *testing.T) {
		if status, body := e.ListPlans(e.Acc, url.Values{"per_page": {"0"}}); status != 400 {
			t.Fatalf("status %d %v", status, body)
		}
	})
}

// TestListImportPlans sends what chartmogul-php 1.0.0 sends for Import\Plan::all
// (src/Import/Plan.php, RESOURCE_PATH /v1/import/plans, ROOT_KEY plans, through
// src/Service/RequestService.php all: a GET with the filters in the query string): the
// legacy route answers exactly what GET /v1/plans answers.
func TestListImportPlans(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	for i := range 3 {
		e.CreatePlan(e.DS.UUID, fmt.Sprintf("p-%d", i), "P")
	}
	e.CreatePlan(e.DS2.UUID, "q-0", "Q")
	e.CreatePlanAs(e.Other, e.OtherDS.UUID, "p-0")
	for _, q := range []url.Values{nil, {"data_source_uuid": {e.DS.UUID}}, {"page": {"2"}, "per_page": {"2"}},
		{"external_id": {"p-0"}}, {"data_source_uuid": {e.OtherDS.UUID}}} {
		status, legacy := e.Do(e.Acc, "ListImportPlans", nil, q, nil)
		_, current := e.ListPlans(e.Acc, q)
		if status != 200 || !reflect.DeepEqual(legacy, current) {
			t.Errorf("%v: %d %v, GET /v1/plans %v", q, status, legacy, current)
		}
	}
}
