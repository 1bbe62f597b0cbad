package customers_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/model"
)

// BenchmarkCustomersDynamoDB reports DynamoDB requests and capacity units per
// customer, contact and attribute operation (docs/benchmarks.md, "Resource
// operations"), with 450 customers in the account so list pages are full.
func BenchmarkCustomersDynamoDB(b *testing.B) {
	e, meter := apitest.MeteredEnv(b)
	e.SeedCustomers(450, e.DS2, model.StatusWorkingLead, "bench-shared@example.com")
	c := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "bench", "name": "Bench",
		"email": "bench@example.com"})
	uuid := c["uuid"].(string)
	contact := e.CreateContact(map[string]any{"customer_uuid": uuid, "data_source_uuid": e.DS.UUID, "email": "c@example.com"})
	conUUID := contact["uuid"].(string)
	e.Do(e.Acc, "AddCustomAttributes", apitest.Cus(uuid), nil,
		map[string]any{"custom": []map[string]any{{"type": "String", "key": "channel", "value": "ads"}}})
	_, first := e.Do(e.Acc, "ListCustomers", nil, url.Values{"per_page": {"200"}}, nil)
	cursor := first["cursor"].(string)
	_, firstDS := e.Do(e.Acc, "ListCustomers", nil, url.Values{"data_source_uuid": {e.DS2.UUID}}, nil)
	cursorDS := firstDS["cursor"].(string)
	none, nobody := apitest.NoQuery, apitest.NoBody
	ops := []apitest.BenchOp{
		{Name: "CreateCustomer", Op: "CreateCustomer", Params: nil, Query: none, Body: func(int) any {
			return map[string]any{"data_source_uuid": e.DS.UUID, "external_id": fmt.Sprint("b-", apitest.BenchSeq.Add(1)), "name": "N", "email": "n@example.com"}
		}, Want: 201},
		{Name: "GetCustomer", Op: "GetCustomer", Params: apitest.Cus(uuid), Query: none, Body: nobody, Want: 200},
		{Name: "UpdateCustomer", Op: "UpdateCustomer", Params: apitest.Cus(uuid), Query: none, Body: func(i int) any {
			return map[string]any{"name": fmt.Sprint("Bench ", i), "country": "US", "state": "US-CA", "website_url": "example.com"}
		}, Want: 200},
		{Name: "ListCustomers page 1 (200)", Op: "ListCustomers", Params: nil, Query: func(int) url.Values { return url.Values{"per_page": {"200"}} }, Body: nobody, Want: 200},
		{Name: "ListCustomers cursor page (200)", Op: "ListCustomers", Params: nil, Query: func(int) url.Values { return url.Values{"cursor": {cursor}} }, Body: nobody, Want: 200},
		{Name: "ListCustomers page=2 (200)", Op: "ListCustomers", Params: nil, Query: func(int) url.Values { return url.Values{"page": {"2"}} }, Body: nobody, Want: 200},
		{Name: "ListCustomers page=3 (200)", Op: "ListCustomers", Params: nil, Query: func(int) url.Values { return url.Values{"page": {"3"}} }, Body: nobody, Want: 200},
		{Name: "ListCustomers page=21 (20 per page)", Op: "ListCustomers", Params: nil, Query: func(int) url.Values {
			return url.Values{"page": {"21"}, "per_page": {"20"}}
		}, Body: nobody, Want: 200},
		{Name: "ListCustomers data_source filter (200)", Op: "ListCustomers", Params: nil, Query: func(int) url.Values {
			return url.Values{"data_source_uuid": {e.DS2.UUID}, "cursor": {cursorDS}}
		}, Body: nobody, Want: 200},
		{Name: "ListCustomers external_id", Op: "ListCustomers", Params: nil, Query: func(int) url.Values { return url.Values{"external_id": {"bench"}} }, Body: nobody, Want: 200},
		{Name: "ListCustomers email (1 match)", Op: "ListCustomers", Params: nil, Query: func(int) url.Values { return url.Values{"email": {"bench@example.com"}} }, Body: nobody, Want: 200},
		{Name: "SearchCustomers (1 match)", Op: "SearchCustomers", Params: nil, Query: func(int) url.Values { return url.Values{"email": {"bench@example.com"}} }, Body: nobody, Want: 200},
		{Name: "AddTags", Op: "AddCustomerTags", Params: apitest.Cus(uuid), Query: none, Body: func(i int) any { return map[string]any{"tags": []string{fmt.Sprint("t", i%5)}} }, Want: 200},
		{Name: "AddCustomAttributes (defined key)", Op: "AddCustomAttributes", Params: apitest.Cus(uuid), Query: none, Body: func(i int) any {
			return map[string]any{"custom": []map[string]any{{"type": "String", "key": "channel", "value": fmt.Sprint("v", i)}}}
		}, Want: 200},
		{Name: "GetCustomerAttributes", Op: "GetCustomerAttributes", Params: apitest.Cus(uuid), Query: none, Body: nobody, Want: 200},
		{Name: "CreateContact", Op: "CreateContact", Params: nil, Query: none, Body: func(int) any {
			return map[string]any{"customer_uuid": uuid, "data_source_uuid": e.DS.UUID, "email": fmt.Sprint("c", apitest.BenchSeq.Add(1), "@example.com")}
		}, Want: 201},
		{Name: "GetContact", Op: "GetContact", Params: con(conUUID), Query: none, Body: nobody, Want: 200},
		{Name: "UpdateContact (name)", Op: "UpdateContact", Params: con(conUUID), Query: none, Body: func(i int) any { return map[string]any{"first_name": fmt.Sprint("F", i)} }, Want: 200},
		{Name: "ListContacts of a customer", Op: "ListContacts", Params: nil, Query: func(int) url.Values { return url.Values{"customer_uuid": {uuid}, "per_page": {"20"}} }, Body: nobody, Want: 200},
	}
	apitest.RunBenchOps(b, e, meter, ops)
	apitest.BenchEach(b, e, meter, apitest.BenchOp{Name: "DeleteCustomer", Op: "DeleteCustomer", Params: nil, Query: none, Body: nobody, Want: 204}, func() map[string]string {
		return apitest.Cus(e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": fmt.Sprint("d-", apitest.BenchSeq.Add(1)),
			"name": "D", "email": "d@example.com"})["uuid"].(string))
	})
}
