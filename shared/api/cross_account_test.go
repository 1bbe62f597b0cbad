package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// volatile is the part of a listing that changes by itself (the time of the request).
var volatile = regexp.MustCompile(`"before_key":"[^"]*"`)

// ownerState is what the first account can read of its own objects; a second account's
// calls must leave it as it was.
func ownerState(t *testing.T, env *testenv.Env, accountID string, ids map[string]string) string {
	t.Helper()
	reads := []struct {
		op string
		q  url.Values
	}{
		{"GetCustomer", nil},
		{"GetDataSource", nil},
		{"GetPlan", nil},
		{"GetInvoice", nil},
		{"GetCustomerNote", nil},
		{"GetContact", nil},
		{"GetCustomAttributes", nil},
		{"ListCustomers", url.Values{"per_page": {"200"}}},
		{"ListPlans", url.Values{"per_page": {"200"}}},
		{"ListInvoices", url.Values{"per_page": {"200"}}},
		{"ListSubscriptionEvents", url.Values{"per_page": {"200"}}},
		{"ListImportSubscriptions", nil},
		{"GetStripeConnection", nil},
		{"GetStripeSettings", nil},
	}
	var b strings.Builder
	for _, r := range reads {
		route := apitest.Operation(t, r.op).Routes[0].Path
		resp := apitest.Raw(t, env.API, r.op, apigwtest.Call{PathParams: pathParams(route, ids), Query: r.q, AccountID: accountID})
		b.WriteString(r.op + " " + volatile.ReplaceAllString(resp.Body, "") + "\n")
	}
	return b.String()
}

// The second account's calls: A's ids everywhere an id goes.
func crossAccountQuery(ids map[string]string) url.Values {
	return url.Values{"customer_uuid": {ids["customer_uuid"]}, "data_source_uuid": {ids["data_source_uuid"]},
		"external_id": {ids["invoice_external_id"]}, "customer_external_id": {"c00"}, "plan_uuid": {ids["plan_uuid"]},
		"invoice_uuid": {ids["invoice_uuid"]}, "uuid": {ids["customer_uuid"]}, "email": {ids["email"]},
		"data_source_uuids": {ids["data_source_uuid"]}, "start-date": {"2024-01-01"}, "end-date": {"2024-03-01"}}
}

func crossAccountBody(ids map[string]string) map[string]any {
	refs := map[string]any{"data_source_uuid": ids["data_source_uuid"], "customer_uuid": ids["customer_uuid"],
		"plan_uuid": ids["plan_uuid"], "invoice_uuid": ids["invoice_uuid"], "external_id": ids["invoice_external_id"],
		"customer_external_id": "c00", "uuid": ids["customer_uuid"], "email": ids["email"]}
	body := map[string]any{"name": "Taken over", "type": "note", "text": "x", "status": "void", "disabled": true,
		"interval_count": 1, "interval_unit": "month", "tags": []any{"x"}, "custom": []any{map[string]any{"key": "k", "value": "v"}},
		"from": map[string]any{"customer_uuid": ids["customer_uuid"]}, "into": map[string]any{"customer_uuid": ids["customer_uuid"]},
		"subscriptions":      []any{map[string]any{"uuid": ids["subscription_uuid"], "data_source_uuid": ids["data_source_uuid"]}},
		"subscription_event": refs, "invoices": []any{refs}, "line_items": []any{refs}, "transactions": []any{refs},
		"type_of_entity": "customer", "webhook_secret": "whsec_intruder", "api_key": "rk_intruder",
		"churn_recognition": "churn_at_click", "settings": map[string]any{"refund_handling": "refund_full_only"}}
	for k, v := range refs {
		body[k] = v
	}
	return body
}

// Every operation of the registry (shared/routes, from which template.yaml's routes are
// generated), called by a second account with the first account's ids, filters and
// cursors, answers 404 or 400 (422 for a malformed id), or a 2xx that shows none of the
// first account's ids, and the first account's objects are as they were.
func TestCrossAccountOverEveryOperation(t *testing.T) {
	env := testenv.New(t)
	owner, intruder := env.NewAccount(t, "Owner"), env.NewAccount(t, "Intruder")
	ids := bodyFixture(t, env, owner.ID)
	ids["email"] = "c@example.com"
	if status, body := apitest.Do(t, env.API, "PutStripeConnection", apigwtest.Call{
		PathParams: map[string]string{"data_source_uuid": ids["data_source_uuid"]},
		Body:       map[string]any{"webhook_secret": "whsec_owner"}, AccountID: owner.ID}); status != http.StatusOK {
		t.Fatalf("connect the owner's data source to Stripe: %d %v", status, body)
	}
	_, page := apitest.Do(t, env.API, "ListCustomers", apigwtest.Call{
		Query: url.Values{"per_page": {"1"}}, AccountID: owner.ID})
	cursor, _ := page["cursor"].(string)
	if cursor == "" {
		t.Fatalf("no cursor: %v", page)
	}
	secrets := []string{ids["customer_uuid"], ids["data_source_uuid"], ids["plan_uuid"], ids["invoice_uuid"],
		ids["line_item_uuid"], ids["note_uuid"], ids["contact_uuid"], "c00-i1"}
	before := ownerState(t, env, owner.ID, ids)
	covered := 0
	for _, r := range operations() {
		covered++
		ep := r.build(env.API)
		calls := []apigwtest.Call{{Method: r.Method, Route: r.Path, PathParams: pathParams(r.Path, ids),
			Query: crossAccountQuery(ids), Body: crossAccountBody(ids), AccountID: intruder.ID}}
		if r.Method == http.MethodGet {
			calls = append(calls, apigwtest.Call{Method: r.Method, Route: r.Path, PathParams: pathParams(r.Path, ids),
				Query: url.Values{"cursor": {cursor}}, AccountID: intruder.ID})
		}
		for i, c := range calls {
			resp := apigwtest.Raw(t, ep, c)
			if !json.Valid([]byte(resp.Body)) && resp.Body != "" {
				t.Errorf("%s #%d: %d non-JSON body %q", r.Key(), i, resp.StatusCode, resp.Body)
			}
			switch {
			case slices.Contains([]int{400, 404, 422}, resp.StatusCode):
			case resp.StatusCode/100 == 2:
				for _, s := range secrets {
					if strings.Contains(resp.Body, s) {
						t.Errorf("%s: %d shows the owner's %s: %s", r.Key(), resp.StatusCode, s, resp.Body)
					}
				}
			default:
				t.Errorf("%s #%d: %d %s, want 404 or 400", r.Key(), i, resp.StatusCode, resp.Body)
			}
		}
	}
	if after := ownerState(t, env, owner.ID, ids); after != before {
		t.Errorf("the owner's objects changed:\nbefore %s\nafter  %s", before, after)
	}
	t.Logf("cross-account calls of %d operations", covered)
}
