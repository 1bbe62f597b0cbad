package api_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/devstack/openapi"
	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/routes"
)

// goIdentifier matches what a message must never show: Go type syntax or a package
// qualified name (the decoder's own wording was "expected struct { Name optional…").
var goIdentifier = regexp.MustCompile(`struct ?\{|map\[|interface ?\{|\[\][a-z]|\b(int|int64|float64|uint\d*|bool)\b|\b(api|model|optional|json|apigw|apperr|jsonbody|store|time)\.[A-Z]|\bGo\b`)

// bodyFixture holds real ids for every path parameter of the template, so that each
// body route reaches its body.
func bodyFixture(t *testing.T, env *testenv.Env, accountID string) map[string]string {
	t.Helper()
	ctx := t.Context()
	cus, ds := apitest.ImportedCustomer(t, env, accountID)
	pl, err := env.Deps.Store.GetPlanByExternalID(ctx, accountID, ds.UUID, "p1")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := env.Deps.Store.GetInvoice(ctx, accountID, invoiceUUIDOf(t, env, accountID, ds.UUID, "c00-i1"))
	if err != nil || len(inv.LineItems) == 0 {
		t.Fatalf("invoice %+v %v", inv, err)
	}
	params := map[string]string{"customer_uuid": cus, "data_source_uuid": ds.UUID, "plan_uuid": pl.UUID,
		"invoice_uuid": inv.UUID, "invoice_external_id": inv.ExternalID, "line_item_uuid": inv.LineItems[0].UUID,
		"subscription_uuid": inv.LineItems[0].SubscriptionUUID, "uuid": ds.UUID, "from_uuid": cus, "import_id": "none",
		"id": "1", "metric": "mrr", "file": "none"}
	if len(inv.Transactions) > 0 {
		params["transaction_uuid"] = inv.Transactions[0].UUID
	}
	status, note := apitest.Do(t, env.API, "CreateCustomerNote", apigwtest.Call{
		Body: map[string]any{"customer_uuid": cus, "type": "note", "text": "n"}, AccountID: accountID})
	if status != 201 {
		t.Fatalf("note: %d %v", status, note)
	}
	params["note_uuid"], _ = note["uuid"].(string)
	status, contact := apitest.Do(t, env.API, "CreateContact", apigwtest.Call{
		Body: map[string]any{"customer_uuid": cus, "data_source_uuid": ds.UUID, "email": "c@example.com"}, AccountID: accountID})
	if status != 201 {
		t.Fatalf("contact: %d %v", status, contact)
	}
	params["contact_uuid"], _ = contact["uuid"].(string)
	return params
}

func invoiceUUIDOf(t *testing.T, env *testenv.Env, accountID, dsUUID, externalID string) string {
	t.Helper()
	_, listed := apitest.Do(t, env.API, "ListInvoices", apigwtest.Call{
		Query: map[string][]string{"data_source_uuid": {dsUUID}, "external_id": {externalID}}, AccountID: accountID})
	invs, _ := listed["invoices"].([]any)
	if len(invs) != 1 {
		t.Fatalf("invoice %s: %v", externalID, listed)
	}
	return invs[0].(map[string]any)["uuid"].(string)
}

// operation is a route of the registry behind the authorizer and the handler it runs
// (as its main.go does).
type operation struct {
	routes.Route
	build routes.API
}

// operations are every route of the registry (shared/routes, from which template.yaml's
// are generated) behind the authorizer.
func operations() []operation {
	var out []operation
	for _, f := range routes.Functions {
		for _, r := range f.Routes {
			if f.API != nil {
				out = append(out, operation{r, f.API})
			}
		}
	}
	return out
}

// pathParams are the {names} of a route path.
func pathParams(path string, ids map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`\{([a-z_]+)\+?\}`).FindAllStringSubmatch(path, -1) {
		out[m[1]] = ids[m[1]]
	}
	return out
}

// familyOf names the error shape of a body.
func familyOf(body map[string]any) apperr.Family {
	switch {
	case body["error_details"] != nil:
		return apperr.FamilyB
	case body["errors"] != nil:
		return apperr.FamilyC
	}
	return apperr.FamilyA
}

// Every route of the template that takes a body (a requestBody in docs/openapi.yaml,
// which its own tests keep equal to the template's routes) answers a body of each wrong JSON type
// with a 400 in its own error family, in the API's words.
func TestEveryBodyRouteRefusesEachWrongJSONType(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Types")
	ids := bodyFixture(t, env, acc.ID)
	root, _ := testenv.RepoTemplate(t)
	spec, err := openapi.Load(filepath.Join(root, openapi.DocumentPath))
	if err != nil {
		t.Fatal(err)
	}
	ops := spec.Operations()
	wrong := map[string]string{"array": `[]`, "string": `"x"`, "number": `1`, "boolean": `true`, "null": `null`}
	checked := 0
	for _, r := range operations() {
		if op, ok := ops[r.Key()]; !ok || op.RequestBody == nil {
			continue
		}
		ep := r.build(env.API)
		checked++
		for kind, body := range wrong {
			t.Run(r.Key()+"/"+kind, func(t *testing.T) {
				resp := apigwtest.Raw(t, ep, apigwtest.Call{Method: r.Method, Route: r.Path, PathParams: pathParams(r.Path, ids),
					Body: body, AccountID: acc.ID})
				var got map[string]any
				if err := json.Unmarshal([]byte(resp.Body), &got); err != nil {
					t.Fatalf("%d %q is not a JSON object", resp.StatusCode, resp.Body)
				}
				if resp.StatusCode != http.StatusBadRequest || familyOf(got) != ep.Family {
					t.Fatalf("%d %s, want a 400 in family %v", resp.StatusCode, resp.Body, ep.Family)
				}
				if goIdentifier.MatchString(resp.Body) || !strings.Contains(resp.Body, "JSON object") {
					t.Fatalf("message %s: want the JSON type, no Go identifier", resp.Body)
				}
			})
		}
	}
	if checked < 40 {
		t.Fatalf("only %d body routes found in template.yaml", checked)
	}
	t.Logf("%d body routes × %d wrong JSON types", checked, len(wrong))
}
