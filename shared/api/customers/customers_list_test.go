package customers_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

func TestListCustomersPagination(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	// 450 customers match every filter below (ds2, Working Lead, a shared e-mail);
	// newResourceEnv's customer and 29 more in ds do not.
	start := time.Now()
	matching := e.SeedCustomers(450, e.DS2, model.StatusWorkingLead, "Shared@Example.com")
	t.Logf("seeded in %v", time.Since(start))
	others := append([]string{e.Customer}, e.SeedCustomers(29, e.DS, model.StatusQualifiedLead, "")...)
	e.SeedCustomers(3, e.OtherDS, model.StatusWorkingLead, "shared@example.com") // another account
	tests := []struct {
		name  string
		q     url.Values
		want  []string
		sizes []int
	}{
		{"data source", url.Values{"data_source_uuid": {e.DS2.UUID}, "per_page": {"200"}}, matching, []int{200, 200, 50}},
		{"status underscore", url.Values{"status": {"Working_Lead"}}, matching, []int{200, 200, 50}},
		{"status space, per_page above 200", url.Values{"status": {"Working Lead"}, "per_page": {"500"}}, matching, []int{200, 200, 50}},
		{"email", url.Values{"email": {"shared@example.com"}}, matching, []int{200, 200, 50}},
		{"system Custom and data source", url.Values{"system": {"Custom"}, "data_source_uuid": {e.DS2.UUID}}, matching, []int{200, 200, 50}},
		{"few matches", url.Values{"status": {"Qualified Lead"}, "per_page": {"10"}}, others[1:], []int{10, 10, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, sizes := e.CustomerPages(tt.q)
			t.Logf("listed in %v", time.Since(start))
			if fmt.Sprint(sizes) != fmt.Sprint(tt.sizes) {
				t.Fatalf("page sizes %v", sizes)
			}
			assertSameSet(t, got, tt.want)
		})
	}
	none, sizes := e.CustomerPages(url.Values{"system": {"Stripe"}})
	if len(none) != 0 || fmt.Sprint(sizes) != "[0]" {
		t.Fatalf("system Stripe: %v", sizes)
	}
	// Without the others, the plain listing holds exactly the 450.
	for _, uuid := range others {
		if status, _ := e.Do(e.Acc, "DeleteCustomer", apitest.Cus(uuid), nil, nil); status != 204 {
			t.Fatalf("delete %s: %d", uuid, status)
		}
	}
	all, sizes := e.CustomerPages(url.Values{"per_page": {"200"}})
	if fmt.Sprint(sizes) != "[200 200 50]" {
		t.Fatalf("plain listing page sizes %v", sizes)
	}
	assertSameSet(t, all, matching)
	_, body := e.Do(e.Acc, "ListCustomers", nil, url.Values{"external_id": {"unknown"}}, nil)
	want := map[string]any{"entries": []any{}, "current_page": float64(1), "total_pages": float64(1),
		"has_more": false, "per_page": float64(200), "page": float64(1), "cursor": nil}
	apitest.AssertBody(t, body, want)
}

func assertSameSet(t *testing.T, got, want []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, u := range got {
		if seen[u] {
			t.Fatalf("duplicate %s", u)
		}
		seen[u] = true
	}
	for _, u := range want {
		if !seen[u] {
			t.Fatalf("missing %s (got %d, want %d)", u, len(got), len(want))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d, want %d", len(got), len(want))
	}
}

func TestListCustomersFiltersAndCursors(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	a := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "same", "name": "A"})
	b := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS2.UUID, "external_id": "same", "name": "B", "email": "b@example.com"})
	c := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS2.UUID, "external_id": "other", "name": "C"})
	e.CreateContact(map[string]any{"customer_uuid": c["uuid"], "data_source_uuid": e.DS2.UUID, "email": "B@example.com"})
	count := func(q url.Values) int {
		status, body := e.Do(e.Acc, "ListCustomers", nil, q, nil)
		if status != 200 {
			t.Fatalf("%v: %d %v", q, status, body)
		}
		return len(body["entries"].([]any))
	}
	for q, n := range map[string]int{
		"external_id=same": 2, "external_id=same&data_source_uuid=" + e.DS2.UUID: 1, "email=b@example.com": 1,
		"email=b@example.com&with_associated_emails=true": 2, "system=Import API": 4, "status=Active": 0,
	} {
		vals, _ := url.ParseQuery(q)
		if got := count(vals); got != n {
			t.Errorf("%s: %d entries, want %d", q, got, n)
		}
	}
	_ = a
	_ = b
	// Cursors: tampered, replayed on another listing or account, garbage: 400.
	_, body := e.Do(e.Acc, "ListCustomers", nil, url.Values{"per_page": {"1"}}, nil)
	cursor := body["cursor"].(string)
	// Even a correctly signed cursor cannot carry another account's partition.
	theirs := keys.Customer(e.Other, "cus_x")
	forged, err := e.D.Cursors.Encode(e.Acc, "customers?", map[string]string{keys.PK: theirs.PK, keys.SK: theirs.SK,
		keys.GSI1PK: keys.CustomerList(e.Other, 1), keys.GSI1SK: keys.CustomerOrder(1)})
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		acc string
		q   url.Values
	}{
		{e.Acc, url.Values{"cursor": {apitest.Tamper(cursor)}}},
		{e.Acc, url.Values{"cursor": {"garbage"}}},
		{e.Acc, url.Values{"cursor": {cursor}, "status": {"New Lead"}}},
		{e.Other, url.Values{"cursor": {cursor}}},
		{e.Acc, url.Values{"cursor": {*forged}}},
	}
	for _, tc := range bad {
		status, body := e.Do(tc.acc, "ListCustomers", nil, tc.q, nil)
		if status != 400 || body["param"] != "cursor" {
			t.Errorf("%v: %d %v", tc.q, status, body)
		}
	}
	_, body = e.Do(e.Acc, "ListContacts", nil, url.Values{"cursor": {cursor}}, nil)
	if body["code"] != float64(400) {
		t.Errorf("customer cursor on contacts: %v", body)
	}
	for q, status := range map[string]int{"status=Happy": 400, "per_page=0": 400, "page=0": 400, "offset=200": 400, "with_associated_emails=maybe": 400} {
		vals, _ := url.ParseQuery(q)
		if got, body := e.Do(e.Acc, "ListCustomers", nil, vals, nil); got != status {
			t.Errorf("%s: %d %v", q, got, body)
		}
	}
}
