package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
)

// TestLegacyPageOnCustomers walks the customers with page=1, 2, ... as a data-pipeline
// connector does: the pages hold what the cursor walk holds, each names its page, and
// a page beyond the end is empty without more (no consumer can loop).
func TestLegacyPageOnCustomers(t *testing.T) {
	e := newResourceEnv(t)
	e.seedCustomers(6, e.ds, "", "")
	byCursor, _ := e.customerPages(url.Values{"per_page": {"2"}})

	var byPage []string
	pages := 0
	for n := 1; ; n++ {
		pages = n
		q := url.Values{"per_page": {"2"}, "page": {fmt.Sprint(n)}}
		status, body := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, q, nil)
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
		_, next := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil,
			url.Values{"per_page": {"2"}, "cursor": {body["cursor"].(string)}}, nil)
		if first := next["entries"].([]any)[0].(map[string]any)["uuid"]; first != byCursor[2*n] {
			t.Errorf("cursor after page=%d starts at %v, want %s", n, first, byCursor[2*n])
		}
	}
	if !reflect.DeepEqual(byPage, byCursor) {
		t.Errorf("page walk %v\ncursor walk %v", byPage, byCursor)
	}
	status, beyond := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, url.Values{"per_page": {"2"}, "page": {"9"}}, nil)
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
		status, body := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, vals, nil)
		if status != http.StatusBadRequest || body["message"] != msg {
			t.Errorf("%s: %d %v", q, status, body)
		}
	}
	if status, body := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, url.Values{"page": {"51"}, "per_page": {"200"}}, nil); status != http.StatusOK {
		t.Errorf("page 51 of 200 (10,000 entries before it): %d %v", status, body)
	}
}

// TestLegacyPageOnPlansAndSearch: the other legacy listings name the page and count
// their pages the same way.
func TestLegacyPageOnPlansAndSearch(t *testing.T) {
	e := newResourceEnv(t)
	for i := range 5 {
		e.createPlan(e.ds.UUID, fmt.Sprint("paged-", i), "Paged")
	}
	_, all := e.do(e.acc, api.ListPlans, "GET", plansRoute, nil, nil, nil)
	want := uuidsOf(all["plans"])
	status, body := e.do(e.acc, api.ListPlans, "GET", plansRoute, nil, url.Values{"per_page": {"2"}, "page": {"2"}}, nil)
	if status != http.StatusOK || !reflect.DeepEqual(uuidsOf(body["plans"]), want[2:4]) ||
		body["current_page"] != 2.0 || body["total_pages"] != 3.0 || body["has_more"] != true {
		t.Errorf("plans page=2: %d %v", status, body)
	}

	e.seedCustomers(3, e.ds, "", "same@example.com")
	status, body = e.do(e.acc, api.SearchCustomers, "GET", "/v1/customers/search", nil,
		url.Values{"email": {"same@example.com"}, "per_page": {"2"}, "page": {"2"}}, nil)
	if status != http.StatusOK || len(body["entries"].([]any)) != 1 || body["current_page"] != 2.0 || body["total_pages"] != nil {
		t.Errorf("search page=2: %d %v", status, body)
	}
}

func uuidsOf(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any)["uuid"].(string))
	}
	return out
}

// TestUnknownPagingParameters: every listing answers a paging parameter it does not
// serve with a 400 in its family, naming it; the parameters the official clients send
// (cursor, per_page, per-page on activities, filters) pass.
func TestUnknownPagingParameters(t *testing.T) {
	e := newResourceEnv(t)
	cus := map[string]string{"customer_uuid": e.customer}
	_, g := e.do(e.acc, api.CreatePlanGroup, "POST", "/v1/plan_groups", nil, nil, map[string]any{"name": "G",
		"plans": []string{e.createPlan(e.ds.UUID, "grouped", "Grouped")["uuid"].(string)}})
	group := map[string]string{"plan_group_uuid": g["uuid"].(string)}
	type route struct {
		name   string
		ep     func(*api.Deps) apigw.Endpoint
		path   string
		params map[string]string
		family string // "A" or "B"
		legacy bool   // serves page=N
	}
	routes := []route{
		{"customers", api.ListCustomers, "/v1/customers", nil, "A", true},
		{"contacts", api.ListContacts, "/v1/contacts", nil, "A", false},
		{"customer contacts", api.ListCustomerContacts, "/v1/customers/{customer_uuid}/contacts", cus, "A", false},
		{"customer notes", api.ListCustomerNotes, "/v1/customer_notes", nil, "A", false},
		{"plans", api.ListPlans, "/v1/plans", nil, "B", true},
		{"invoices", api.ListInvoices, "/v1/invoices", nil, "B", false},
		{"import invoices", api.ListImportInvoices, "/v1/import/customers/{customer_uuid}/invoices", cus, "B", true},
		{"import subscriptions", api.ListImportSubscriptions, "/v1/import/customers/{customer_uuid}/subscriptions", cus, "B", true},
		{"subscription events", api.ListSubscriptionEvents, "/v1/subscription_events", nil, "B", true},
		{"customer subscriptions", api.ListCustomerSubscriptions, "/v1/customers/{customer_uuid}/subscriptions", cus, "A", true},
		{"customer activities", api.ListCustomerActivities, "/v1/customers/{customer_uuid}/activities", cus, "A", true},
		{"activities", api.ListActivities, "/v1/activities", nil, "A", false},
		{"data sources", api.ListDataSources, "/v1/data_sources", nil, "B", false},
		{"notes", api.ListNotes, "/v1/notes", nil, "A", false},
		{"opportunities", api.ListOpportunities, "/v1/opportunities", nil, "A", false},
		{"tasks", api.ListTasks, "/v1/tasks", nil, "A", false},
		{"plan groups", api.ListPlanGroups, "/v1/plan_groups", nil, "B", true},
		{"a plan group's plans", api.ListPlanGroupPlans, "/v1/plan_groups/{plan_group_uuid}/plans", group, "B", true},
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
			status, body := e.do(e.acc, r.ep, "GET", r.path, r.params, url.Values{p: {"2"}}, nil)
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
		if status, body := e.do(e.acc, r.ep, "GET", r.path, r.params, ok, nil); status != http.StatusOK {
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
	e := newMetricsEnv(t)
	for _, order := range []string{"date", "-date"} {
		_, all := e.get(api.ListActivities, "/v1/activities", e.acc, query("order", order))
		want := field(all, "uuid")
		var got []any
		q := query("order", order, "per_page", "2")
		for range 10 {
			status, page := e.get(api.ListActivities, "/v1/activities", e.acc, q)
			if status != http.StatusOK {
				t.Fatalf("%v: %d %v", q, status, page)
			}
			uuids := field(page, "uuid")
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
		_, end := e.get(api.ListActivities, "/v1/activities", e.acc, query("order", order, "start-after", want[8].(string)))
		if len(field(end, "uuid")) != 0 || end["has_more"] != false {
			t.Errorf("after the last: %v", end)
		}
	}
	_, churns := e.get(api.ListActivities, "/v1/activities", e.acc, query("type", "churn"))
	_, all := e.get(api.ListActivities, "/v1/activities", e.acc, nil)
	firstUUID := field(all, "uuid")[0].(string)
	_, after := e.get(api.ListActivities, "/v1/activities", e.acc, query("type", "churn", "start-after", firstUUID))
	if !reflect.DeepEqual(field(after, "uuid"), field(churns, "uuid")) {
		t.Errorf("churns after the first activity: %v, want %v", field(after, "uuid"), field(churns, "uuid"))
	}

	_, page := e.get(api.ListActivities, "/v1/activities", e.acc, query("per_page", "1"))
	for _, bad := range []struct {
		account string
		kv      []string
	}{
		{e.acc, []string{"start-after", "561814e1-d7d3-42f3-8936-4689ec0fbb74"}},
		{e.acc, []string{"start-after", "nope"}},
		{e.other, []string{"start-after", firstUUID}},
		{e.acc, []string{"start-after", firstUUID, "cursor", page["cursor"].(string)}},
	} {
		status, body := e.get(api.ListActivities, "/v1/activities", bad.account, query(bad.kv...))
		if status != http.StatusBadRequest || body["param"] != "start-after" {
			t.Errorf("%v: %d %v", bad.kv, status, body)
		}
	}
}
