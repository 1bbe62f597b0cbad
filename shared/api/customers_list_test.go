package api_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// seedCustomers stores n customers in ds (of its account) through the store (fast), with the given
// status and e-mail, and returns their uuids in creation order.
func (e *resourceEnv) seedCustomers(n int, ds model.DataSource, status, email string) []string {
	return e.seedCustomersIn(ds.AccountID, n, ds, status, email)
}

func (e *resourceEnv) seedCustomersIn(accountID string, n int, ds model.DataSource, status, email string) []string {
	e.t.Helper()
	uuids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	// moto does not serialise concurrent updates of one item (the id counter), so
	// the seeding runs one create at a time.
	sem := make(chan struct{}, 1)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ctx := context.Background()
			id, err := e.d.Store.NextCustomerID(ctx, accountID)
			if err != nil {
				errs <- err
				return
			}
			uuid := model.NewCustomerUUID()
			ext := fmt.Sprintf("seed-%s-%d", ds.UUID, id)
			c := model.Customer{AccountID: accountID, ID: id, UUID: uuid, DataSourceUUID: ds.UUID,
				DataSourceUUIDs: []string{ds.UUID}, ExternalID: ext, ExternalIDs: []string{ext},
				Systems: []string{ds.System}, Name: "Seed " + ext, Email: email, Status: status, Tags: []string{},
				BillingSystemType: model.BillingSystemCustom, Currency: "USD", CreatedAt: e.d.Now(), UpdatedAt: e.d.Now()}
			if err := e.d.Store.CreateCustomer(ctx, c); err != nil {
				errs <- err
				return
			}
			uuids[i] = uuid
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Fatal(err)
	}
	return uuids
}

// customerPages walks a listing and returns every uuid and the page sizes.
func (e *resourceEnv) customerPages(q url.Values) ([]string, []int) {
	e.t.Helper()
	var uuids []string
	var sizes []int
	q = cloneValues(q)
	for range 20 {
		status, body := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, q, nil)
		if status != 200 {
			e.t.Fatalf("%v: %d %v", q, status, body)
		}
		entries := body["entries"].([]any)
		sizes = append(sizes, len(entries))
		for _, en := range entries {
			uuids = append(uuids, en.(map[string]any)["uuid"].(string))
		}
		if _, first := body["current_page"]; first != (q.Get("cursor") == "") {
			e.t.Fatalf("legacy keys on the wrong page: %v", body)
		}
		if body["has_more"] != true {
			return uuids, sizes
		}
		q.Set("cursor", body["cursor"].(string))
	}
	e.t.Fatal("listing does not end")
	return nil, nil
}

func TestListCustomersPagination(t *testing.T) {
	e := newResourceEnv(t)
	// 450 customers match every filter below (ds2, Working Lead, a shared e-mail);
	// newResourceEnv's customer and 29 more in ds do not.
	start := time.Now()
	matching := e.seedCustomers(450, e.ds2, model.StatusWorkingLead, "Shared@Example.com")
	t.Logf("seeded in %v", time.Since(start))
	others := append([]string{e.customer}, e.seedCustomers(29, e.ds, model.StatusQualifiedLead, "")...)
	e.seedCustomers(3, e.otherDS, model.StatusWorkingLead, "shared@example.com") // another account
	tests := []struct {
		name  string
		q     url.Values
		want  []string
		sizes []int
	}{
		{"data source", url.Values{"data_source_uuid": {e.ds2.UUID}, "per_page": {"200"}}, matching, []int{200, 200, 50}},
		{"status underscore", url.Values{"status": {"Working_Lead"}}, matching, []int{200, 200, 50}},
		{"status space, per_page above 200", url.Values{"status": {"Working Lead"}, "per_page": {"500"}}, matching, []int{200, 200, 50}},
		{"email", url.Values{"email": {"shared@example.com"}}, matching, []int{200, 200, 50}},
		{"system Custom and data source", url.Values{"system": {"Custom"}, "data_source_uuid": {e.ds2.UUID}}, matching, []int{200, 200, 50}},
		{"few matches", url.Values{"status": {"Qualified Lead"}, "per_page": {"10"}}, others[1:], []int{10, 10, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, sizes := e.customerPages(tt.q)
			t.Logf("listed in %v", time.Since(start))
			if fmt.Sprint(sizes) != fmt.Sprint(tt.sizes) {
				t.Fatalf("page sizes %v", sizes)
			}
			assertSameSet(t, got, tt.want)
		})
	}
	none, sizes := e.customerPages(url.Values{"system": {"Stripe"}})
	if len(none) != 0 || fmt.Sprint(sizes) != "[0]" {
		t.Fatalf("system Stripe: %v", sizes)
	}
	// Without the others, the plain listing holds exactly the 450.
	for _, uuid := range others {
		if status, _ := e.do(e.acc, api.DeleteCustomer, "DELETE", customerRoute, cus(uuid), nil, nil); status != 204 {
			t.Fatalf("delete %s: %d", uuid, status)
		}
	}
	all, sizes := e.customerPages(url.Values{"per_page": {"200"}})
	if fmt.Sprint(sizes) != "[200 200 50]" {
		t.Fatalf("plain listing page sizes %v", sizes)
	}
	assertSameSet(t, all, matching)
	_, body := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, url.Values{"external_id": {"unknown"}}, nil)
	want := map[string]any{"entries": []any{}, "current_page": float64(1), "total_pages": float64(1),
		"has_more": false, "per_page": float64(200), "page": float64(1), "cursor": nil}
	assertBody(t, body, want)
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
	e := newResourceEnv(t)
	a := e.createCustomer(map[string]any{"data_source_uuid": e.ds.UUID, "external_id": "same", "name": "A"})
	b := e.createCustomer(map[string]any{"data_source_uuid": e.ds2.UUID, "external_id": "same", "name": "B", "email": "b@example.com"})
	c := e.createCustomer(map[string]any{"data_source_uuid": e.ds2.UUID, "external_id": "other", "name": "C"})
	e.createContact(map[string]any{"customer_uuid": c["uuid"], "data_source_uuid": e.ds2.UUID, "email": "B@example.com"})
	count := func(q url.Values) int {
		status, body := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, q, nil)
		if status != 200 {
			t.Fatalf("%v: %d %v", q, status, body)
		}
		return len(body["entries"].([]any))
	}
	for q, n := range map[string]int{
		"external_id=same": 2, "external_id=same&data_source_uuid=" + e.ds2.UUID: 1, "email=b@example.com": 1,
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
	_, body := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, url.Values{"per_page": {"1"}}, nil)
	cursor := body["cursor"].(string)
	// Even a correctly signed cursor cannot carry another account's partition.
	theirs := keys.Customer(e.other, "cus_x")
	forged, err := e.d.Cursors.Encode(e.acc, "customers?", map[string]string{keys.PK: theirs.PK, keys.SK: theirs.SK,
		keys.GSI1PK: keys.CustomerList(e.other, 1), keys.GSI1SK: keys.CustomerOrder(1)})
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		acc string
		q   url.Values
	}{
		{e.acc, url.Values{"cursor": {tamper(cursor)}}},
		{e.acc, url.Values{"cursor": {"garbage"}}},
		{e.acc, url.Values{"cursor": {cursor}, "status": {"New Lead"}}},
		{e.other, url.Values{"cursor": {cursor}}},
		{e.acc, url.Values{"cursor": {*forged}}},
	}
	for _, tc := range bad {
		status, body := e.do(tc.acc, api.ListCustomers, "GET", customersRoute, nil, tc.q, nil)
		if status != 400 || body["param"] != "cursor" {
			t.Errorf("%v: %d %v", tc.q, status, body)
		}
	}
	_, body = e.do(e.acc, api.ListContacts, "GET", contactsRoute, nil, url.Values{"cursor": {cursor}}, nil)
	if body["code"] != float64(400) {
		t.Errorf("customer cursor on contacts: %v", body)
	}
	for q, status := range map[string]int{"status=Happy": 400, "per_page=0": 400, "page=0": 400, "offset=200": 400, "with_associated_emails=maybe": 400} {
		vals, _ := url.ParseQuery(q)
		if got, body := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, vals, nil); got != status {
			t.Errorf("%s: %d %v", q, got, body)
		}
	}
}
