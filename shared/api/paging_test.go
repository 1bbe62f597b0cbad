package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

// TestLegacyPageOnCustomers walks the customers with page=1, 2, ... as a data-pipeline
// connector does: the pages hold what the cursor walk holds, each names its page, and
// a page beyond the end is empty without more (no consumer can loop).
func TestLegacyPageOnCustomers(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	e.SeedCustomers(6, e.DS, "", "")
	byCursor, _ := e.CustomerPages(url.Values{"per_page": {"2"}})

	var byPage []string
	pages := 0
	for n := 1; ; n++ {
		pages = n
		q := url.Values{"per_page": {"2"}, "page": {fmt.Sprint(n)}}
		status, body := e.Do(e.Acc, "ListCustomers", nil, q, nil)
		if status != http.StatusOK {
			t.Fatalf("page=%d: %d %v", n, status, body)
		}
		if body["current_page"] != float64(n) || body["page"] != float64(n) || body["per_page"] != 2.0 {
			t.Errorf("page=%d: current_page %v, page %v, per_page %v", n, body["current_page"], body["page"], body["per_page"])
		}
		entries := body["entries"].([]any)
		for _, c := range entries {
			byPage = append(byPage, c.(map[string]any)["uuid"].(string))
		}
		if body["has_more"] != true {
			if len(entries) == 0 || body["total_pages"] != float64(n) {
				t.Errorf("last page=%d: %d entries, total_pages %v", n, len(entries), body["total_pages"])
			}
			break
		}
		if n > 10 {
			t.Fatal("page walk does not end")
		}
		// The cursor of a page=N answer continues after it.
		_, next := e.Do(e.Acc, "ListCustomers", nil,
			url.Values{"per_page": {"2"}, "cursor": {body["cursor"].(string)}}, nil)
		if first := next["entries"].([]any)[0].(map[string]any)["uuid"]; first != byCursor[2*n] {
			t.Errorf("cursor after page=%d starts at %v, want %s", n, first, byCursor[2*n])
		}
	}
	if !reflect.DeepEqual(byPage, byCursor) {
		t.Errorf("page walk %v\ncursor walk %v", byPage, byCursor)
	}
	status, beyond := e.Do(e.Acc, "ListCustomers", nil, url.Values{"per_page": {"2"}, "page": {"9"}}, nil)
	if status != http.StatusOK || len(beyond["entries"].([]any)) != 0 || beyond["has_more"] != false ||
		beyond["cursor"] != nil || beyond["total_pages"] != float64(pages) {
		t.Errorf("page beyond the end: %d %v", status, beyond)
	}

	for q, msg := range map[string]string{
		"page=0":                 `Invalid value for parameter "page": "0"`,
		"page=two":               `Invalid value for parameter "page": "two"`,
		"page=2&cursor=x":        `Parameter "page" cannot be combined with "cursor"`,
		"page=52&per_page=200":   `Parameter "page" is too large: page × per_page may not pass 10000 entries; continue with the cursor of an earlier page`,
		"page=10002&per_page=1":  `Parameter "page" is too large: page × per_page may not pass 10000 entries; continue with the cursor of an earlier page`,
		"per_page=2&start-after": `Parameter "start-after" is not supported by this listing: page with cursor and per_page`,
	} {
		vals, _ := url.ParseQuery(q)
		status, body := e.Do(e.Acc, "ListCustomers", nil, vals, nil)
		if status != http.StatusBadRequest || body["message"] != msg {
			t.Errorf("%s: %d %v", q, status, body)
		}
	}
	if status, body := e.Do(e.Acc, "ListCustomers", nil, url.Values{"page": {"51"}, "per_page": {"200"}}, nil); status != http.StatusOK {
		t.Errorf("page 51 of 200 (10,000 entries before it): %d %v", status, body)
	}
}

// TestLegacyPageOnPlansAndSearch: the other legacy listings name the page and count
// their pages the same way.
func TestLegacyPageOnPlansAndSearch(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	for i := range 5 {
		e.CreatePlan(e.DS.UUID, fmt.Sprint("paged-", i), "Paged")
	}
	_, all := e.Do(e.Acc, "ListPlans", nil, nil, nil)
	want := apitest.UUIDsOf(all["plans"])
	status, body := e.Do(e.Acc, "ListPlans", nil, url.Values{"per_page": {"2"}, "page": {"2"}}, nil)
	if status != http.StatusOK || !reflect.DeepEqual(apitest.UUIDsOf(body["plans"]), want[2:4]) ||
		body["current_page"] != 2.0 || body["total_pages"] != 3.0 || body["has_more"] != true {
		t.Errorf("plans page=2: %d %v", status, body)
	}

	e.SeedCustomers(3, e.DS, "", "same@example.com")
	status, body = e.Do(e.Acc, "SearchCustomers", nil,
		url.Values{"email": {"same@example.com"}, "per_page": {"2"}, "page": {"2"}}, nil)
	if status != http.StatusOK || len(body["entries"].([]any)) != 1 || body["current_page"] != 2.0 || body["total_pages"] != nil {
		t.Errorf("search page=2: %d %v", status, body)
	}
}

// TestUnknownPagingParameters: every listing answers a paging parameter it does not
// serve with a 400 in its family, naming it; the parameters the official clients send
// (cursor, per_page, per-page on activities, filters) pass.
func TestUnknownPagingParameters(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	cus := map[string]string{"customer_uuid": e.Customer}
	_, g := e.Do(e.Acc, "CreatePlanGroup", nil, nil, map[string]any{"name": "G",
		"plans": []string{e.CreatePlan(e.DS.UUID, "grouped", "Grouped")["uuid"].(string)}})
	group := map[string]string{"plan_group_uuid": g["uuid"].(string)}
	type route struct {
		name   string
		op     string
		params map[string]string
		family string // "A" or "B"
		legacy bool   // serves page=N
	}
	routes := []route{
		{"customers", "ListCustomers", nil, "A", true},
		{"contacts", "ListContacts", nil, "A", false},
		{"customer contacts", "ListCustomerContacts", cus, "A", false},
		{"customer notes", "ListCustomerNotes", nil, "A", false},
		{"plans", "ListPlans", nil, "B", true},
		{"invoices", "ListInvoices", nil, "B", false},
		{"import invoices", "ListImportInvoices", cus, "B", true},
		{"import subscriptions", "ListImportSubscriptions", cus, "B", true},
		{"subscription events", "ListSubscriptionEvents", nil, "B", true},
		{"customer subscriptions", "ListCustomerSubscriptions", cus, "A", true},
		{"customer activities", "ListCustomerActivities", cus, "A", true},
		{"activities", "ListActivities", nil, "A", false},
		{"data sources", "ListDataSources", nil, "B", false},
		{"notes", "ListNotes", nil, "A", false},
		{"opportunities", "ListOpportunities", nil, "A", false},
		{"tasks", "ListTasks", nil, "A", false},
		{"plan groups", "ListPlanGroups", nil, "B", true},
		{"a plan group's plans", "ListPlanGroupPlans", group, "B", true},
	}
	for _, r := range routes {
		unknown := []string{"offset", "limit", "starting_after", "pageSize", "page[number]", "next_page", "skip"}
		if r.name != "activities" {
			unknown = append(unknown, "start-after")
		}
		if !r.legacy {
			unknown = append(unknown, "page")
		}
		if r.name == "data sources" {
			unknown = append(unknown, "cursor", "per_page")
		}
		for _, p := range unknown {
			status, body := e.Do(e.Acc, r.op, r.params, url.Values{p: {"2"}}, nil)
			if status != http.StatusBadRequest || !inFamily(body, r.family, p) {
				t.Errorf("%s ?%s=2: %d %v", r.name, p, status, body)
			}
		}
		if r.name == "data sources" {
			continue
		}
		ok := url.Values{"per_page": {"1"}, "sort": {"whatever"}}
		if r.legacy {
			ok.Set("page", "1")
		}
		if r.name == "activities" {
			ok = url.Values{"per-page": {"1"}, "start-date": {"2024-01-01"}, "end-date": {"2024-12-31"}, "order": {"-date"}}
		}
		if status, body := e.Do(e.Acc, r.op, r.params, ok, nil); status != http.StatusOK {
			t.Errorf("%s ?%s: %d %v", r.name, ok.Encode(), status, body)
		}
	}
}

// inFamily tells whether an error body is in the family and names param.
func inFamily(body map[string]any, family, param string) bool {
	if family == "A" {
		return body["code"] == 400.0 && body["param"] == param
	}
	details, _ := body["error_details"].([]any)
	return len(details) == 1 && details[0].(map[string]any)["param"] == param
}

// TestStartAfterOnActivities: start-after=<activity uuid> starts after that activity, in
// either order and with filters, and reaches the end; an uuid that names no activity
// of the account is a 400, never the first page again.
func TestStartAfterOnActivities(t *testing.T) {
	e := apitest.NewMetricsEnv(t)
	for _, order := range []string{"date", "-date"} {
		_, all := e.Get("ListActivities", e.Acc, apitest.Query("order", order))
		want := apitest.Field(all, "uuid")
		var got []any
		q := apitest.Query("order", order, "per_page", "2")
		for range 10 {
			status, page := e.Get("ListActivities", e.Acc, q)
			if status != http.StatusOK {
				t.Fatalf("%v: %d %v", q, status, page)
			}
			uuids := apitest.Field(page, "uuid")
			got = append(got, uuids...)
			if page["has_more"] != true {
				break
			}
			q.Set("start-after", uuids[len(uuids)-1].(string))
		}
		if !reflect.DeepEqual(got, want) || len(want) != 9 {
			t.Errorf("order=%s: start-after walk %v\nwant %v", order, got, want)
		}
		// The last activity: nothing after it.
		_, end := e.Get("ListActivities", e.Acc, apitest.Query("order", order, "start-after", want[8].(string)))
		if len(apitest.Field(end, "uuid")) != 0 || end["has_more"] != false {
			t.Errorf("after the last: %v", end)
		}
	}
	_, churns := e.Get("ListActivities", e.Acc, apitest.Query("type", "churn"))
	_, all := e.Get("ListActivities", e.Acc, nil)
	firstUUID := apitest.Field(all, "uuid")[0].(string)
	_, after := e.Get("ListActivities", e.Acc, apitest.Query("type", "churn", "start-after", firstUUID))
	if !reflect.DeepEqual(apitest.Field(after, "uuid"), apitest.Field(churns, "uuid")) {
		t.Errorf("churns after the first activity: %v, want %v", apitest.Field(after, "uuid"), apitest.Field(churns, "uuid"))
	}

	_, page := e.Get("ListActivities", e.Acc, apitest.Query("per_page", "1"))
	for _, bad := range []struct {
		account string
		kv      []string
	}{
		{e.Acc, []string{"start-after", "561814e1-d7d3-42f3-8936-4689ec0fbb74"}},
		{e.Acc, []string{"start-after", "nope"}},
		{e.Other, []string{"start-after", firstUUID}},
		{e.Acc, []string{"start-after", firstUUID, "cursor", page["cursor"].(string)}},
	} {
		status, body := e.Get("ListActivities", bad.account, apitest.Query(bad.kv...))
		if status != http.StatusBadRequest || body["param"] != "start-after" {
			t.Errorf("%v: %d %v", bad.kv, status, body)
		}
	}
}
