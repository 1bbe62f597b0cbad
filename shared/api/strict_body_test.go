package api_test

import (
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// Malformed bodies are refused whole: nothing after the one JSON value, no null for an
// object, no invalid UTF-8 or lone surrogates, no nesting past the limit; the stored
// object stays as it was.
func TestStrictBodiesLeaveTheCustomerUnchanged(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	before := e.CreateCustomer(map[string]any{"data_source_uuid": e.DS.UUID, "external_id": "strict-1", "name": "Before"})
	uuid := before["uuid"].(string)
	deep := strings.Repeat(`{"a":`, 9999) + "1" + strings.Repeat("}", 9999)
	cases := []struct{ name, body, want string }{
		{"trailing garbage", `{"name":"x"} not json`, "nothing after it"},
		{"second object", `{"name":"x"}{"name":"y"}`, "nothing after it"},
		{"null", `null`, "must be a JSON object, not null"},
		{"array", `[{"name":"x"}]`, "must be a JSON object, not an array"},
		{"invalid UTF-8", "{\"name\":\"x\xff\"}", `\"name\" is not valid UTF-8`},
		{"lone surrogate", `{"name":"x\udc00"}`, `\"name\" contains a lone UTF-16 surrogate`},
		{"unpaired high surrogate", `{"name":"x\ud800y"}`, `lone UTF-16 surrogate`},
		{"too deep", `{"name":"x","custom":` + deep + `}`, "nests deeper than"},
		{"wrong type", `{"name":["x"]}`, `\"name\" must be a string`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.Raw(e.Acc, "UpdateCustomer", apitest.Cus(uuid), tc.body)
			if status != 400 || !strings.Contains(body, tc.want) || !strings.Contains(body, `"code":400`) {
				t.Fatalf("%d %s, want 400 with %q", status, body, tc.want)
			}
			if _, after := e.GetCustomer(e.Acc, uuid); after["name"] != "Before" {
				t.Fatalf("customer changed: %v", after)
			}
		})
	}
}

// A body nested as deep as the one that once passed a second, deeper parse is a 400 in
// the transactions route's family, and the invoice keeps its transactions.
func TestDeepTransactionBodyIsA400(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Deep")
	_, ds := apitest.ImportedCustomer(t, env, acc.ID)
	_, listed := apitest.Do(t, env.API, "ListInvoices", apigwtest.Call{
		Query: map[string][]string{"data_source_uuid": {ds.UUID}, "external_id": {"c00-i1"}}, AccountID: acc.ID})
	invUUID := listed["invoices"].([]any)[0].(map[string]any)["uuid"].(string)
	before, err := env.Deps.Store.GetInvoice(t.Context(), acc.ID, invUUID)
	if err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{65, 9998, 9999, 10000, 10001} {
		body := `{"type":"payment","result":"successful","date":"2024-01-10","x":` +
			strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}"
		resp := apitest.Raw(t, env.API, "CreateInvoiceTransaction", apigwtest.Call{
			PathParams: map[string]string{"invoice_uuid": invUUID}, Body: body, AccountID: acc.ID})
		if resp.StatusCode != 400 || !strings.Contains(resp.Body, `"error_details"`) || !strings.Contains(resp.Body, "nests deeper") {
			t.Fatalf("depth %d: %d %s", depth, resp.StatusCode, resp.Body)
		}
	}
	after, err := env.Deps.Store.GetInvoice(t.Context(), acc.ID, invUUID)
	if err != nil || len(after.Transactions) != len(before.Transactions) {
		t.Fatalf("transactions %d -> %d (%v)", len(before.Transactions), len(after.Transactions), err)
	}
}

// A numeric external id comes back digit for digit, past float64's 2^53, where the
// API takes one (docs/api.md, "Numbers").
func TestNumericExternalIDsAreExact(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	const id = "12345678901234567"
	status, plan := e.Raw(e.Acc, "CreatePlan", nil,
		`{"data_source_uuid":"`+e.DS.UUID+`","name":"N","interval_count":1,"interval_unit":"month","external_id":`+id+`}`)
	if status != 201 || !strings.Contains(plan, `"external_id":"`+id+`"`) {
		t.Fatalf("plan: %d %s", status, plan)
	}
	status, cust := e.Raw(e.Acc, "CreateCustomer", nil,
		`{"data_source_uuid":"`+e.DS.UUID+`","name":"N","external_id":`+id+`9}`)
	// A customer's external_id is a string field: a number is refused, not rounded.
	if status != 400 || !strings.Contains(cust, `\"external_id\" must be a string`) {
		t.Fatalf("customer: %d %s", status, cust)
	}
}

// The same through a json_imports body and a subscription event.
func TestNumericExternalIDsAreExactInImports(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Exact")
	_, ds := apitest.ImportedCustomer(t, env, acc.ID)
	const id = "12345678901234567"
	body := `{"subscription_event":{"data_source_uuid":"` + ds.UUID + `","customer_external_id":"c00","event_type":"subscription_start",` +
		`"event_date":"2024-01-05","effective_date":"2024-01-05","subscription_external_id":"c00-s","plan_external_id":"p1",` +
		`"currency":"USD","amount_in_cents":1000,"external_id":` + id + `}}`
	resp := apitest.Raw(t, env.API, "CreateSubscriptionEvent", apigwtest.Call{
		Body: body, AccountID: acc.ID})
	if resp.StatusCode != 201 || !strings.Contains(resp.Body, `"external_id":"`+id+`"`) {
		t.Fatalf("event: %d %s", resp.StatusCode, resp.Body)
	}
	imp := `{"external_id":` + id + `,"plans":[{"external_id":` + id + `1,"name":"Exact","interval_count":1,"interval_unit":"month"}]}`
	resp = apitest.Raw(t, env.API, "CreateJsonImport", apigwtest.Call{
		PathParams: map[string]string{"data_source_uuid": ds.UUID}, Body: imp, AccountID: acc.ID})
	if resp.StatusCode/100 != 2 || !strings.Contains(resp.Body, `"external_id":"`+id+`"`) {
		t.Fatalf("import: %d %s", resp.StatusCode, resp.Body)
	}
	pl, err := env.Deps.Store.GetPlanByExternalID(t.Context(), acc.ID, ds.UUID, id+"1")
	if err != nil || pl.ExternalID != id+"1" {
		t.Fatalf("imported plan %+v %v", pl, err)
	}
}
