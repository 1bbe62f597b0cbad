package customers_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

func TestCreateCustomerShape(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	status, raw := e.Raw(e.Acc, "CreateCustomer", nil, map[string]any{
		"data_source_uuid": e.DS.UUID, "external_id": "cus_004", "name": "Richard Hendricks",
		"email": "customer@example.com", "company": "Pied Piper", "country": "US", "state": "US-CA",
		"city": "San Francisco", "zip": "12345", "lead_created_at": "2015-11-01T00:00:00",
		"free_trial_started_at": "2015-11-07 01:20:00 UTC", "website_url": "chartmogul.com",
		"attributes": map[string]any{"tags": []string{"managed"}, "custom": []map[string]any{
			{"type": "Integer", "key": "seats", "value": 12}}},
	})
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	wantOrder := []string{"id", "uuid", "external_id", "name", "email", "status", "customer-since", "attributes",
		"data_source_uuid", "data_source_uuids", "external_ids", "company", "country", "state", "city", "zip",
		"lead_created_at", "free_trial_started_at", "address", "mrr", "arr", "billing-system-url", "chartmogul-url",
		"service-url", "billing-system-type", "currency", "currency-sign", "owner", "website_url", "last_seen"}
	if got := topKeys(t, raw); !reflect.DeepEqual(got, wantOrder) {
		t.Fatalf("keys %v\nwant %v", got, wantOrder)
	}
	c := apitest.JSONMap(t, raw)
	id := c["id"].(float64)
	want := map[string]any{
		"external_id": "cus_004", "name": "Richard Hendricks", "email": "customer@example.com", "status": "New Lead",
		"customer-since": nil, "data_source_uuid": e.DS.UUID, "data_source_uuids": []any{e.DS.UUID},
		"external_ids": []any{"cus_004"}, "company": "Pied Piper", "country": "US", "state": "CA",
		"city": "San Francisco", "zip": "12345", "lead_created_at": "2015-11-01T00:00:00.000Z",
		"free_trial_started_at": "2015-11-07T01:20:00.000Z",
		"address":               map[string]any{"country": "United States", "state": "California", "city": "San Francisco", "address_zip": "12345"},
		"attributes":            map[string]any{"custom": map[string]any{"seats": float64(12)}, "stripe": map[string]any{}, "tags": []any{"managed"}},
		"mrr":                   float64(0), "arr": float64(0), "billing-system-url": nil,
		"chartmogul-url":      fmt.Sprintf("%s/#/customers/%d-Pied_Piper", e.D.AppURL, int64(id)),
		"billing-system-type": "Custom", "currency": "USD", "currency-sign": "$", "owner": nil,
		"website_url": "https://chartmogul.com", "last_seen": nil,
	}
	for k, v := range want {
		if !reflect.DeepEqual(c[k], v) {
			t.Errorf("%s = %#v, want %#v", k, c[k], v)
		}
	}
	if !strings.HasPrefix(c["uuid"].(string), "cus_") {
		t.Errorf("uuid %v", c["uuid"])
	}
	status, got := e.GetCustomer(e.Acc, c["uuid"].(string))
	if status != 200 || !reflect.DeepEqual(got, c) {
		t.Fatalf("retrieve: %d %v", status, got)
	}
	// Integer ids are unique and increasing within the account.
	c2 := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "cus_005", "name": "B"})
	if c2["id"].(float64) <= id {
		t.Errorf("ids %v then %v", id, c2["id"])
	}
}

func topKeys(t testing.TB, raw string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 {
				keys = append(keys, v)
				// skip the value
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return keys
}

func TestCreateCustomerErrors(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "dup", "name": "A"})
	tests := []struct {
		name   string
		body   map[string]any
		status int
		want   map[string]any
	}{
		{"all missing", map[string]any{}, 422, map[string]any{"errors": map[string]any{
			"external_id":      "A unique external ID is required for each customer.",
			"name":             "A name is required for each customer.",
			"data_source_uuid": "A valid data source UUID is required for each customer."}}},
		{"other account's data source", map[string]any{"data_source_uuid": e.OtherDS.UUID, "external_id": "x", "name": "A"}, 422,
			map[string]any{"errors": map[string]any{"data_source_uuid": "A valid data source UUID is required for each customer."}}},
		{"external id clash", map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "dup", "name": "B"}, 422,
			apitest.FamilyA(422, "The external ID for this customer already exists in our system.", "external_id")},
		{"bad country", map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "y", "name": "B", "country": "XX"}, 422, nil},
		{"undefined custom via map", map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "y", "name": "B",
			"attributes": map[string]any{"custom": map[string]any{"nope": 1}}}, 422, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.Do(e.Acc, "CreateCustomer", nil, nil, tt.body)
			if status != tt.status {
				t.Fatalf("%d %v", status, body)
			}
			if tt.want != nil && !reflect.DeepEqual(body, tt.want) {
				t.Fatalf("body %v\nwant %v", body, tt.want)
			}
		})
	}
	// The same external id in another data source is fine.
	e.CreateCustomer(map[string]any{"data_source_uuid": e.DS2.UUID, "external_id": "dup", "name": "C"})
}

func TestCustomerNotFoundAndIsolation(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	c := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "iso", "name": "Iso",
		"email": "iso@example.com"})
	uuid := c["uuid"].(string)
	bare := strings.TrimPrefix(uuid, "cus_")
	want := apitest.FamilyA(404, `Customer "`+bare+`" does not exist`, "customer_id")
	calls := []struct {
		op   string
		body any
	}{
		{"GetCustomer", nil},
		{"UpdateCustomer", map[string]any{"name": "Stolen"}},
		{"DeleteCustomer", nil},
		{"GetCustomerAttributes", nil},
		{"AddCustomerTags", map[string]any{"tags": []string{"x"}}},
		{"AddCustomAttributes", map[string]any{"custom": []any{}}},
		{"ListCustomerContacts", nil},
		{"CreateCustomerContact", map[string]any{"data_source_uuid": e.DS.UUID}},
	}
	for _, c := range calls {
		status, body := e.Do(e.Other, c.op, apitest.Cus(uuid), nil, c.body)
		if status != 404 || !reflect.DeepEqual(body, want) {
			t.Errorf("%s as other account: %d %v", c.op, status, body)
		}
	}
	status, body := e.GetCustomer(e.Acc, "cus_not-a-uuid")
	if status != 404 || body["param"] != "customer_id" {
		t.Errorf("malformed uuid: %d %v", status, body)
	}
	// Filters and search do not reach another account's customers.
	for _, q := range []url.Values{{"external_id": {"iso"}}, {"email": {"iso@example.com"}}, {"data_source_uuid": {e.DS.UUID}}} {
		status, body := e.Do(e.Other, "ListCustomers", nil, q, nil)
		if status != 200 || len(body["entries"].([]any)) != 0 {
			t.Errorf("other account list %v: %d %v", q, status, body)
		}
	}
	status, body = e.Do(e.Other, "SearchCustomers", nil, url.Values{"email": {"iso@example.com"}}, nil)
	if status != 404 || !reflect.DeepEqual(body, apitest.FamilyA(404, `Can't find any customers with email: "iso@example.com"`, "email")) {
		t.Errorf("other account search: %d %v", status, body)
	}
	// The owner still sees it unchanged.
	if status, got := e.GetCustomer(e.Acc, uuid); status != 200 || got["name"] != "Iso" {
		t.Fatalf("%d %v", status, got)
	}
}

func TestDeleteCustomer(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	c := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "del", "name": "Del",
		"email": "del@example.com", "primary_contact": map[string]any{"email": "p@example.com"}})
	uuid := c["uuid"].(string)
	if status, body := e.Do(e.Acc, "DeleteCustomer", apitest.Cus(uuid), nil, nil); status != 204 || body != nil {
		t.Fatalf("%d %v", status, body)
	}
	if status, _ := e.GetCustomer(e.Acc, uuid); status != 404 {
		t.Fatalf("after delete: %d", status)
	}
	if status, body := e.Do(e.Acc, "ListContacts", nil, url.Values{"email": {"p@example.com"}}, nil); status != 200 || len(body["entries"].([]any)) != 0 {
		t.Fatalf("contacts survived: %v", body)
	}
	if status, _ := e.Do(e.Acc, "SearchCustomers", nil, url.Values{"email": {"del@example.com"}}, nil); status != 404 {
		t.Fatalf("search after delete: %d", status)
	}
	// The external id is free again.
	e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "del", "name": "Again"})
	if status, _ := e.Do(e.Acc, "DeleteCustomer", apitest.Cus(uuid), nil, nil); status != 404 {
		t.Fatalf("second delete: %d", status)
	}
}

func TestSearchCustomers(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	a := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "s1", "name": "S1", "email": "Same@Example.com"})
	b := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS2.UUID, "external_id": "s2", "name": "S2", "email": "same@example.com"})
	status, body := e.Do(e.Acc, "SearchCustomers", nil, url.Values{"email": {"same@example.com"}, "per_page": {"1"}}, nil)
	if status != 200 || len(body["entries"].([]any)) != 1 || body["has_more"] != true || body["total_pages"] != nil || body["current_page"] != float64(1) {
		t.Fatalf("%d %v", status, body)
	}
	first := body["entries"].([]any)[0].(map[string]any)["uuid"]
	status, body = e.Do(e.Acc, "SearchCustomers", nil,
		url.Values{"email": {"same@example.com"}, "per_page": {"1"}, "cursor": {body["cursor"].(string)}}, nil)
	second := body["entries"].([]any)[0].(map[string]any)["uuid"]
	if status != 200 || first != a["uuid"] || second != b["uuid"] || body["has_more"] != false {
		t.Fatalf("%d %v (first %v)", status, body, first)
	}
	if _, ok := body["current_page"]; ok {
		t.Errorf("cursor page carries legacy keys: %v", body)
	}
	status, body = e.Do(e.Acc, "SearchCustomers", nil, url.Values{"email": {"no@email.com"}}, nil)
	if status != 404 || !reflect.DeepEqual(body, apitest.FamilyA(404, `Can't find any customers with email: "no@email.com"`, "email")) {
		t.Fatalf("%d %v", status, body)
	}
}
