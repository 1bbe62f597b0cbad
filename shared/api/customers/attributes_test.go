package customers_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

func TestCustomAttributesAndTags(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	c := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "attrs", "name": "Attrs",
		"email": "attrs@example.com", "attributes": map[string]any{"tags": []string{"a"}}})
	uuid := c["uuid"].(string)
	status, body := e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": []map[string]any{
		{"type": "String", "key": "StringKey", "value": "String Value"}, {"type": "Integer", "key": "integer_key", "value": 1234},
		{"type": "Timestamp", "key": "timestamp_key", "value": "2016-01-31 00:00:00 UTC"}, {"type": "Boolean", "key": "boolean_key", "value": "TRUE"},
		{"type": "Decimal", "key": "dec", "value": "12.50"}, {"type": "String", "key": "src", "value": "x", "source": "integration"}}})
	want := map[string]any{"custom": map[string]any{"StringKey": "String Value", "integer_key": float64(1234),
		"timestamp_key": "2016-01-31T00:00:00.000Z", "boolean_key": true, "dec": 12.5, "src": "x"}}
	if status != 200 || !reflect.DeepEqual(body, want) {
		t.Fatalf("%d %v", status, body)
	}
	_, before := e.GetCustomer(e.Acc, uuid)
	bad := []struct {
		name  string
		ep    func() (int, map[string]any)
		param string
	}{
		{"oversize string", func() (int, map[string]any) {
			return e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": []map[string]any{
				{"type": "String", "key": "long", "value": strings.Repeat("x", 256)}}})
		}, "custom"},
		{"key defined with another type", func() (int, map[string]any) {
			return e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": []map[string]any{
				{"type": "Integer", "key": "StringKey", "value": 1}}})
		}, "custom"},
		{"integer not an integer", func() (int, map[string]any) {
			return e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": []map[string]any{
				{"type": "Integer", "key": "integer_key", "value": "1.5"}}})
		}, "custom"},
		{"boolean yes", func() (int, map[string]any) {
			return e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": []map[string]any{
				{"type": "Boolean", "key": "boolean_key", "value": "yes"}}})
		}, "custom"},
		{"bad timestamp", func() (int, map[string]any) {
			return e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": []map[string]any{
				{"type": "Timestamp", "key": "timestamp_key", "value": "soon"}}})
		}, "custom"},
		{"unknown type", func() (int, map[string]any) {
			return e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": []map[string]any{
				{"type": "Money", "key": "m", "value": 1}}})
		}, "custom"},
		{"PUT undefined key", func() (int, map[string]any) {
			return e.Do(e.Acc, "UpdateCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": map[string]any{"nope": 1}})
		}, "custom"},
		{"PUT wrong type", func() (int, map[string]any) {
			return e.Do(e.Acc, "UpdateCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": map[string]any{"integer_key": "x"}})
		}, "custom"},
	}
	for _, tt := range bad {
		status, body := tt.ep()
		if status != 422 || body["param"] != tt.param || body["code"] != float64(422) {
			t.Errorf("%s: %d %v", tt.name, status, body)
		}
		if _, after := e.GetCustomer(e.Acc, uuid); !reflect.DeepEqual(after, before) {
			t.Errorf("%s changed the customer", tt.name)
		}
	}
	status, body = e.Do(e.Acc, "UpdateCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": map[string]any{"integer_key": 7, "timestamp_key": "2016-02-01"}})
	if status != 200 || body["custom"].(map[string]any)["integer_key"] != float64(7) || body["custom"].(map[string]any)["timestamp_key"] != "2016-02-01T00:00:00.000Z" || len(body["custom"].(map[string]any)) != 6 {
		t.Fatalf("PUT: %d %v", status, body)
	}
	status, body = e.Do(e.Acc, "RemoveCustomAttributes", apitest.Cus(uuid), nil, map[string]any{"custom": []string{"integer_key", "dec"}})
	if status != 204 || body != nil {
		t.Fatalf("DELETE: %d %v", status, body)
	}
	_, body = e.Do(e.Acc, "GetCustomAttributes", apitest.Cus(uuid), nil, nil)
	if len(body["custom"].(map[string]any)) != 4 {
		t.Fatalf("GET custom: %v", body)
	}
	// Tags.
	_, body = e.Do(e.Acc, "AddCustomerTags", apitest.Cus(uuid), nil, map[string]any{"tags": []string{"b", "a", "c"}})
	if !reflect.DeepEqual(body, map[string]any{"tags": []any{"a", "b", "c"}}) {
		t.Fatalf("add tags: %v", body)
	}
	_, body = e.Do(e.Acc, "RemoveCustomerTags", apitest.Cus(uuid), nil, map[string]any{"tags": []string{"b", "zzz"}})
	if !reflect.DeepEqual(body, map[string]any{"tags": []any{"a", "c"}}) {
		t.Fatalf("remove tags: %v", body)
	}
	if status, body := e.Do(e.Acc, "AddCustomerTags", apitest.Cus(uuid), nil, map[string]any{}); status != 400 {
		t.Fatalf("no tags: %d %v", status, body)
	}
	_, attrs := e.Do(e.Acc, "GetCustomerAttributes", apitest.Cus(uuid), nil, nil)
	if !reflect.DeepEqual(attrs["tags"], []any{"a", "c"}) || !reflect.DeepEqual(attrs["stripe"], map[string]any{}) || len(attrs["custom"].(map[string]any)) != 4 {
		t.Fatalf("attributes: %v", attrs)
	}
	// By e-mail.
	status, body = e.Do(e.Acc, "AddCustomerTagsByEmail", nil, nil, map[string]any{"email": "ATTRS@example.com", "tags": []string{"vip"}})
	entries, _ := body["entries"].([]any)
	if status != 200 || len(entries) != 1 || !reflect.DeepEqual(entries[0].(map[string]any)["attributes"].(map[string]any)["tags"], []any{"a", "c", "vip"}) {
		t.Fatalf("tags by email: %d %v", status, body)
	}
	status, body = e.Do(e.Acc, "AddCustomAttributesByEmail", nil, nil, map[string]any{"email": "attrs@example.com",
		"custom": []map[string]any{{"type": "String", "key": "channel", "value": "Facebook"}}})
	entries, _ = body["entries"].([]any)
	if status != 200 || len(entries) != 1 || entries[0].(map[string]any)["attributes"].(map[string]any)["custom"].(map[string]any)["channel"] != "Facebook" {
		t.Fatalf("custom by email: %d %v", status, body)
	}
	if status, _ := e.Do(e.Acc, "AddCustomerTagsByEmail", nil, nil, map[string]any{"email": "none@example.com", "tags": []string{"x"}}); status != 404 {
		t.Fatalf("unknown email: %d", status)
	}
	if status, _ := e.Do(e.Other, "AddCustomerTagsByEmail", nil, nil, map[string]any{"email": "attrs@example.com", "tags": []string{"x"}}); status != 404 {
		t.Fatalf("other account by email: %d", status)
	}
	// The typed keys are now defined, so a PATCH may replace them.
	_, got := e.Do(e.Acc, "UpdateCustomer", apitest.Cus(uuid), nil, map[string]any{"attributes": map[string]any{"custom": map[string]any{"dec": "1.25"}, "tags": []string{}}})
	if !reflect.DeepEqual(got["attributes"], map[string]any{"custom": map[string]any{"dec": 1.25}, "stripe": map[string]any{}, "tags": []any{}}) {
		t.Fatalf("patch replace: %v", got["attributes"])
	}
}
