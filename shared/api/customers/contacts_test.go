package customers_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/model"
)

func con(uuid string) map[string]string { return map[string]string{"contact_uuid": uuid} }

func TestContactLifecycle(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	cu := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "cus_004", "name": "C"})
	cuUUID := cu["uuid"].(string)
	status, raw := e.Raw(e.Acc, "CreateContact", nil, map[string]any{
		"customer_uuid": cuUUID, "data_source_uuid": e.DS.UUID, "email": "contact@example.com"})
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	wantKeys := []string{"uuid", "customer_uuid", "customer_external_id", "data_source_uuid", "external_id", "position",
		"first_name", "last_name", "title", "email", "phone", "linked_in", "twitter", "notes", "custom", "last_seen"}
	if got := topKeys(t, raw); !reflect.DeepEqual(got, wantKeys) {
		t.Fatalf("keys %v", got)
	}
	c := apitest.JSONMap(t, raw)
	uuid := c["uuid"].(string)
	if c["customer_external_id"] != "cus_004" || c["position"] != float64(1) || c["first_name"] != nil ||
		!reflect.DeepEqual(c["custom"], map[string]any{}) {
		t.Fatalf("%v", c)
	}
	e.DefineContactAttr("Toggle", model.AttrBoolean)
	e.DefineContactAttr("Seats", model.AttrInteger)
	status, got := e.Do(e.Acc, "UpdateContact", con(uuid), nil, map[string]any{
		"external_id": "contact_external_id_002", "position": 9, "first_name": "Foo", "last_name": "Bar", "title": "CTO",
		"email": "contact2@example.com", "phone": "+9876543210", "linked_in": "https://linkedin.com/about",
		"twitter": "https://twitter.com/about", "notes": "Heading\nBody", "last_seen": "2024-03-01T10:00:00Z",
		"custom": []map[string]any{{"key": "Toggle", "value": false}, {"key": "Seats", "value": "12"}}})
	if status != 200 {
		t.Fatalf("%d %v", status, got)
	}
	if got["position"] != float64(9) || got["email"] != "contact2@example.com" || got["external_id"] != "contact_external_id_002" ||
		!reflect.DeepEqual(got["custom"], map[string]any{"Seats": float64(12), "Toggle": false}) {
		// custom is an object in the PATCH answer too, as recorded (an array there made the
		// Python client's Contact.modify raise).
		t.Fatalf("%v", got)
	}
	_, one := e.Do(e.Acc, "GetContact", con(uuid), nil, nil)
	if !reflect.DeepEqual(one["custom"], map[string]any{"Toggle": false, "Seats": float64(12)}) {
		t.Fatalf("retrieve custom: %v", one["custom"])
	}
	if _, cust := e.GetCustomer(e.Acc, cuUUID); cust["last_seen"] != "2024-03-01T10:00:00.000Z" {
		t.Fatalf("customer last_seen %v", cust["last_seen"])
	}
	// Rules: each bad value is a 422 and changes nothing.
	other := e.CreateContact(map[string]any{"customer_uuid": cuUUID, "data_source_uuid": e.DS.UUID, "email": "taken@example.com"})
	if other["position"] != float64(2) {
		t.Errorf("second contact position %v", other["position"])
	}
	for name, body := range map[string]map[string]any{
		"duplicate email (case-insensitive)": {"email": "TAKEN@example.com"},
		"bad email":                          {"email": "not-an-email"},
		"undefined custom key":               {"custom": []map[string]any{{"key": "nope", "value": 1}}},
		"custom of wrong type":               {"custom": []map[string]any{{"key": "Seats", "value": "many"}}},
		"position zero":                      {"position": 0},
		"future last_seen":                   {"last_seen": "2999-01-01"},
		"oversize title":                     {"title": strings.Repeat("t", 256)},
	} {
		status, body := e.Do(e.Acc, "UpdateContact", con(uuid), nil, body)
		if status != 422 || body["code"] != float64(422) {
			t.Errorf("%s: %d %v", name, status, body)
		}
		if _, after := e.Do(e.Acc, "GetContact", con(uuid), nil, nil); !reflect.DeepEqual(after, one) {
			t.Errorf("%s changed the contact: %v", name, after)
		}
	}
	// Another customer's contact may use the same e-mail.
	cu2 := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "cus_005", "name": "D"})
	e.CreateContact(map[string]any{"customer_uuid": cu2["uuid"], "data_source_uuid": e.DS.UUID, "email": "taken@example.com"})
	// Contact 404 and isolation.
	bare := strings.TrimPrefix(uuid, "con_")
	for _, acc := range []string{e.Other} {
		status, body := e.Do(acc, "GetContact", con(uuid), nil, nil)
		if status != 404 || !reflect.DeepEqual(body, apitest.FamilyA(404, `Contact "`+bare+`" does not exist`, "contact_uuid")) {
			t.Errorf("%d %v", status, body)
		}
		if status, _ := e.Do(acc, "UpdateContact", con(uuid), nil, map[string]any{"first_name": "X"}); status != 404 {
			t.Errorf("patch as other: %d", status)
		}
		if status, _ := e.Do(acc, "DeleteContact", con(uuid), nil, nil); status != 404 {
			t.Errorf("delete as other: %d", status)
		}
		if _, body := e.Do(acc, "ListContacts", nil, url.Values{"customer_uuid": {cuUUID}}, nil); len(body["entries"].([]any)) != 0 {
			t.Errorf("list as other: %v", body)
		}
	}
	// Listing filters.
	for q, n := range map[string]int{"email=taken@example.com": 2, "customer_external_id=cus_004": 2,
		"customer_uuid=" + cuUUID: 2, "data_source_uuid=" + e.DS.UUID: 3, "": 3} {
		vals, _ := url.ParseQuery(q)
		status, body := e.Do(e.Acc, "ListContacts", nil, vals, nil)
		if status != 200 || len(body["entries"].([]any)) != n || body["has_more"] != false {
			t.Errorf("%s: %d %v", q, status, body)
		}
	}
	// Merge: empty fields of into come from from; from is gone.
	status, merged := e.Do(e.Acc, "MergeContacts",
		map[string]string{"contact_uuid": other["uuid"].(string), "from_uuid": uuid}, nil, map[string]any{})
	if status != 200 || merged["first_name"] != "Foo" || merged["email"] != "taken@example.com" || merged["uuid"] != other["uuid"] {
		t.Fatalf("merge: %d %v", status, merged)
	}
	if status, _ := e.Do(e.Acc, "GetContact", con(uuid), nil, nil); status != 404 {
		t.Fatalf("merged contact still there")
	}
	// The e-mail of the deleted contact is free again.
	e.CreateContact(map[string]any{"customer_uuid": cuUUID, "data_source_uuid": e.DS.UUID, "email": "contact2@example.com"})
	status, body := e.Do(e.Acc, "DeleteContact", con(other["uuid"].(string)), nil, nil)
	if status != 200 || !reflect.DeepEqual(body, map[string]any{}) {
		t.Fatalf("delete: %d %v", status, body)
	}
	if _, cust := e.GetCustomer(e.Acc, cuUUID); cust["last_seen"] != nil {
		t.Fatalf("customer last_seen after delete %v", cust["last_seen"])
	}
	// Create errors.
	for name, tc := range map[string]struct {
		body   map[string]any
		status int
	}{
		"no customer":          {map[string]any{"data_source_uuid": e.DS.UUID}, 400},
		"no data source":       {map[string]any{"customer_uuid": cuUUID}, 400},
		"unknown customer":     {map[string]any{"customer_uuid": "cus_00000000-0000-0000-0000-000000000000", "data_source_uuid": e.DS.UUID}, 404},
		"foreign data source":  {map[string]any{"customer_uuid": cuUUID, "data_source_uuid": e.DS2.UUID}, 422},
		"duplicate email":      {map[string]any{"customer_uuid": cuUUID, "data_source_uuid": e.DS.UUID, "email": "contact2@example.com"}, 422},
		"other account's cust": {map[string]any{"customer_uuid": cuUUID, "data_source_uuid": e.DS.UUID, "as_other": true}, 404},
	} {
		acc := e.Acc
		if tc.body["as_other"] == true {
			acc = e.Other
		}
		if status, body := e.Do(acc, "CreateContact", nil, nil, tc.body); status != tc.status {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
}
