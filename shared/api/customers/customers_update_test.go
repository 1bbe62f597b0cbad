package customers_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/model"
)

func TestUpdateCustomerRules(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	c := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "rules", "name": "Rules",
		"lead_created_at": "2020-01-01", "country": "US", "state": "US-NY",
		"primary_contact": map[string]any{"email": "first@example.com"}})
	uuid := c["uuid"].(string)
	e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil,
		map[string]any{"custom": []map[string]any{{"type": "String", "key": "plan", "value": "pro"}}})
	second := e.CreateContact(map[string]any{"customer_uuid": uuid, "data_source_uuid": e.DS.UUID, "email": "second@example.com"})
	future := e.D.Now().Add(48 * time.Hour).Format(time.RFC3339)
	tests := []struct {
		name  string
		body  map[string]any
		param string
	}{
		{"future lead date", map[string]any{"lead_created_at": future}, "lead_created_at"},
		{"unparsable lead date", map[string]any{"lead_created_at": "yesterday"}, "lead_created_at"},
		{"future trial", map[string]any{"free_trial_started_at": future}, "free_trial_started_at"},
		{"trial before lead", map[string]any{"free_trial_started_at": "2019-12-31"}, "free_trial_started_at"},
		{"state without US-", map[string]any{"state": "CA"}, "state"},
		{"unknown state", map[string]any{"state": "US-XX"}, "state"},
		{"state outside the US", map[string]any{"country": "DE"}, "state"},
		{"bad country", map[string]any{"country": "USA"}, "country"},
		{"unknown owner", map[string]any{"owner": "stranger@example.com"}, "owner"},
		{"non-lead status", map[string]any{"status": "Active"}, "status"},
		{"unknown status", map[string]any{"status": "Happy"}, "status"},
		{"bad website scheme", map[string]any{"website_url": "ftp://example.com"}, "website_url"},
		{"website not a domain", map[string]any{"website_url": "not a url"}, "website_url"},
		{"bad email", map[string]any{"email": "nope"}, "email"},
		{"blank name", map[string]any{"name": ""}, "name"},
		{"oversize company", map[string]any{"company": strings.Repeat("x", 256)}, "company"},
		{"undefined custom key", map[string]any{"attributes": map[string]any{"custom": map[string]any{"nope": "x"}}}, "custom"},
		{"custom value of wrong type", map[string]any{"attributes": map[string]any{"custom": map[string]any{"plan": []any{1}}}}, "custom"},
		{"primary contact bad email", map[string]any{"primary_contact": map[string]any{"email": "bad"}}, "email"},
		{"primary contact duplicate email", map[string]any{"primary_contact": map[string]any{"email": "second@example.com"}}, "email"},
		{"bad value with good ones", map[string]any{"name": "Changed", "tags": []string{"x"}, "country": "ZZ"}, "country"},
	}
	_, before := e.GetCustomer(e.Acc, uuid)
	_, contactsBefore := e.Do(e.Acc, "ListCustomerContacts", apitest.Cus(uuid), nil, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.Do(e.Acc, "UpdateCustomer", apitest.Cus(uuid), nil, tt.body)
			if status != 422 || body["param"] != tt.param || body["code"] != float64(422) || body["message"] == "" {
				t.Fatalf("%d %v", status, body)
			}
			if _, after := e.GetCustomer(e.Acc, uuid); !reflect.DeepEqual(after, before) {
				t.Fatalf("customer changed:\n%v\n%v", before, after)
			}
			if _, contacts := e.Do(e.Acc, "ListCustomerContacts", apitest.Cus(uuid), nil, nil); !reflect.DeepEqual(contacts, contactsBefore) {
				t.Fatalf("contacts changed: %v", contacts)
			}
		})
	}
	_ = second
}

func TestUpdateCustomer(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	c := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "upd", "name": "Upd",
		"attributes": map[string]any{"tags": []string{"old"}, "custom": []map[string]any{
			{"type": "String", "key": "plan", "value": "pro"}, {"type": "Boolean", "key": "vip", "value": "t"}}}})
	uuid := c["uuid"].(string)
	status, got := e.Do(e.Acc, "UpdateCustomer", apitest.Cus(uuid), nil, map[string]any{
		"name": "Chocolate customer 2", "email": "c@example.com", "company": "", "zip": "10001", "city": "NYC",
		"state": "US-NY", "country": "us", "lead_created_at": "2021-01-01T10:00:00+02:00",
		"free_trial_started_at": "2021-01-02", "owner": strings.ToUpper(e.Member.Email), "status": "Qualified_Lead",
		"website_url": "http://example.com/x", "external_id": "ignored", "data_source_uuid": "ignored",
		"attributes":      map[string]any{"tags": []string{"new", "new", "two"}, "custom": map[string]any{"vip": map[string]any{"value": "0", "source": "x"}}},
		"primary_contact": map[string]any{"first_name": "Pat", "email": "pat@example.com"},
	})
	if status != 200 {
		t.Fatalf("%d %v", status, got)
	}
	want := map[string]any{"name": "Chocolate customer 2", "email": "c@example.com", "company": "", "zip": "10001",
		"city": "NYC", "state": "NY", "country": "US", "lead_created_at": "2021-01-01T08:00:00.000Z",
		"free_trial_started_at": "2021-01-02T00:00:00.000Z", "owner": e.Member.Email, "status": "Qualified Lead",
		"website_url": "http://example.com/x", "external_id": "upd",
		"address":    map[string]any{"country": "United States", "state": "New York", "city": "NYC", "address_zip": "10001"},
		"attributes": map[string]any{"tags": []any{"new", "two"}, "custom": map[string]any{"vip": false}, "stripe": map[string]any{}},
	}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if !strings.HasSuffix(got["chartmogul-url"].(string), "-Chocolate_customer_2") {
		t.Errorf("url %v", got["chartmogul-url"])
	}
	_, contacts := e.Do(e.Acc, "ListCustomerContacts", apitest.Cus(uuid), nil, nil)
	entries := contacts["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["position"] != float64(1) || entries[0].(map[string]any)["first_name"] != "Pat" {
		t.Fatalf("primary contact: %v", contacts)
	}
	// The primary contact is updated, not duplicated; null clears fields.
	status, got = e.Do(e.Acc, "PutCustomer", apitest.Cus(uuid), nil, map[string]any{
		"primary_contact": map[string]any{"last_name": "Smith"}, "website_url": "example.org", "state": nil, "owner": nil})
	if status != 200 || got["website_url"] != "https://example.org" || got["state"] != nil || got["owner"] != nil {
		t.Fatalf("%d %v", status, got)
	}
	_, contacts = e.Do(e.Acc, "ListCustomerContacts", apitest.Cus(uuid), nil, nil)
	entries = contacts["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["last_name"] != "Smith" || entries[0].(map[string]any)["first_name"] != "Pat" {
		t.Fatalf("primary contact after second update: %v", contacts)
	}
	// An empty attributes.custom map removes every custom attribute.
	_, got = e.Do(e.Acc, "UpdateCustomer", apitest.Cus(uuid), nil, map[string]any{"attributes": map[string]any{"custom": map[string]any{}}})
	if len(got["attributes"].(map[string]any)["custom"].(map[string]any)) != 0 || len(got["attributes"].(map[string]any)["tags"].([]any)) != 2 {
		t.Fatalf("custom not replaced: %v", got["attributes"])
	}
}

func TestCustomerStatusesModel(t *testing.T) {
	for in, want := range map[string]string{"New_Lead": "New Lead", "past due": "Past Due", "Cancelled": "Cancelled"} {
		if got, ok := model.NormalizeStatus(in); !ok || got != want {
			t.Errorf("%q -> %q", in, got)
		}
	}
}
