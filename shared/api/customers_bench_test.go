package api_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/model"
)

// BenchmarkCustomersDynamoDB reports DynamoDB requests and capacity units per
// customer, contact and attribute operation (docs/benchmarks.md, "Resource
// operations"), with 450 customers in the account so list pages are full.
func BenchmarkCustomersDynamoDB(b *testing.B) {
	e, meter := meteredEnv(b)
	e.seedCustomers(450, e.ds2, model.StatusWorkingLead, "bench-shared@example.com")
	c := e.createCustomer(map[string]any{"data_source_uuid": e.ds.UUID, "external_id": "bench", "name": "Bench",
		"email": "bench@example.com"})
	uuid := c["uuid"].(string)
	contact := e.createContact(map[string]any{"customer_uuid": uuid, "data_source_uuid": e.ds.UUID, "email": "c@example.com"})
	conUUID := contact["uuid"].(string)
	e.do(e.acc, api.AddCustomAttributes, "POST", customerRoute+"/attributes/custom", cus(uuid), nil,
		map[string]any{"custom": []map[string]any{{"type": "String", "key": "channel", "value": "ads"}}})
	_, first := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, url.Values{"per_page": {"200"}}, nil)
	cursor := first["cursor"].(string)
	_, firstDS := e.do(e.acc, api.ListCustomers, "GET", customersRoute, nil, url.Values{"data_source_uuid": {e.ds2.UUID}}, nil)
	cursorDS := firstDS["cursor"].(string)
	none, nobody := noQuery, noBody
	ops := []benchOp{
		{"CreateCustomer", api.CreateCustomer, "POST", customersRoute, nil, none, func(int) any {
			return map[string]any{"data_source_uuid": e.ds.UUID, "external_id": fmt.Sprint("b-", benchSeq.Add(1)), "name": "N", "email": "n@example.com"}
		}, 201},
		{"GetCustomer", api.GetCustomer, "GET", customerRoute, cus(uuid), none, nobody, 200},
		{"UpdateCustomer", api.UpdateCustomer, "PATCH", customerRoute, cus(uuid), none, func(i int) any {
			return map[string]any{"name": fmt.Sprint("Bench ", i), "country": "US", "state": "US-CA", "website_url": "example.com"}
		}, 200},
		{"ListCustomers page 1 (200)", api.ListCustomers, "GET", customersRoute, nil, func(int) url.Values { return url.Values{"per_page": {"200"}} }, nobody, 200},
		{"ListCustomers cursor page (200)", api.ListCustomers, "GET", customersRoute, nil, func(int) url.Values { return url.Values{"cursor": {cursor}} }, nobody, 200},
		{"ListCustomers page=2 (200)", api.ListCustomers, "GET", customersRoute, nil, func(int) url.Values { return url.Values{"page": {"2"}} }, nobody, 200},
		{"ListCustomers page=3 (200)", api.ListCustomers, "GET", customersRoute, nil, func(int) url.Values { return url.Values{"page": {"3"}} }, nobody, 200},
		{"ListCustomers page=21 (20 per page)", api.ListCustomers, "GET", customersRoute, nil, func(int) url.Values {
			return url.Values{"page": {"21"}, "per_page": {"20"}}
		}, nobody, 200},
		{"ListCustomers data_source filter (200)", api.ListCustomers, "GET", customersRoute, nil, func(int) url.Values {
			return url.Values{"data_source_uuid": {e.ds2.UUID}, "cursor": {cursorDS}}
		}, nobody, 200},
		{"ListCustomers external_id", api.ListCustomers, "GET", customersRoute, nil, func(int) url.Values { return url.Values{"external_id": {"bench"}} }, nobody, 200},
		{"ListCustomers email (1 match)", api.ListCustomers, "GET", customersRoute, nil, func(int) url.Values { return url.Values{"email": {"bench@example.com"}} }, nobody, 200},
		{"SearchCustomers (1 match)", api.SearchCustomers, "GET", customersRoute + "/search", nil, func(int) url.Values { return url.Values{"email": {"bench@example.com"}} }, nobody, 200},
		{"AddTags", api.AddTags, "POST", customerRoute + "/attributes/tags", cus(uuid), none, func(i int) any { return map[string]any{"tags": []string{fmt.Sprint("t", i%5)}} }, 200},
		{"AddCustomAttributes (defined key)", api.AddCustomAttributes, "POST", customerRoute + "/attributes/custom", cus(uuid), none, func(i int) any {
			return map[string]any{"custom": []map[string]any{{"type": "String", "key": "channel", "value": fmt.Sprint("v", i)}}}
		}, 200},
		{"GetCustomerAttributes", api.GetCustomerAttributes, "GET", customerRoute + "/attributes", cus(uuid), none, nobody, 200},
		{"CreateContact", api.CreateContact, "POST", contactsRoute, nil, none, func(int) any {
			return map[string]any{"customer_uuid": uuid, "data_source_uuid": e.ds.UUID, "email": fmt.Sprint("c", benchSeq.Add(1), "@example.com")}
		}, 201},
		{"GetContact", api.GetContact, "GET", contactRoute, con(conUUID), none, nobody, 200},
		{"UpdateContact (name)", api.UpdateContact, "PATCH", contactRoute, con(conUUID), none, func(i int) any { return map[string]any{"first_name": fmt.Sprint("F", i)} }, 200},
		{"ListContacts of a customer", api.ListContacts, "GET", contactsRoute, nil, func(int) url.Values { return url.Values{"customer_uuid": {uuid}, "per_page": {"20"}} }, nobody, 200},
	}
	runBenchOps(b, e, meter, ops)
	benchEach(b, e, meter, benchOp{"DeleteCustomer", api.DeleteCustomer, "DELETE", customerRoute, nil, none, nobody, 204}, func() map[string]string {
		return cus(e.createCustomer(map[string]any{"data_source_uuid": e.ds.UUID, "external_id": fmt.Sprint("d-", benchSeq.Add(1)),
			"name": "D", "email": "d@example.com"})["uuid"].(string))
	})
}
