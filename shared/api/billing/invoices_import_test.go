package billing_test

import (
	"context"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

func TestImportCustomerInvoicesListAndTransactions(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Sync")
	other := env.NewAccount(t, "Other")
	ctx := context.Background()
	cus, ds := apitest.ImportedCustomer(t, env, acc.ID)
	pl, err := env.Deps.Store.GetPlanByExternalID(ctx, acc.ID, ds.UUID, "p1")
	if err != nil {
		t.Fatal(err)
	}
	invoice := func(ext string, extra map[string]any) map[string]any {
		inv := map[string]any{"external_id": ext, "date": "2024-03-01 00:00:00", "currency": "USD", "data_source_uuid": ds.UUID,
			"line_items": []any{map[string]any{"type": "subscription", "subscription_external_id": "c00-s", "plan_uuid": pl.UUID,
				"service_period_start": "2024-03-01", "service_period_end": "2024-04-01", "amount_in_cents": 1000, "quantity": 1}},
			"transactions": []any{map[string]any{"type": "payment", "result": "successful", "date": "2024-03-02"}}}
		for k, v := range extra {
			inv[k] = v
		}
		return inv
	}
	cases := []struct {
		name    string
		body    any
		account string
		status  int
		want    string
	}{
		{"imported", map[string]any{"invoices": []any{invoice("s-1", nil)}}, acc.ID, 201, `"external_id":"s-1"`},
		{"re-sent unchanged", map[string]any{"invoices": []any{invoice("s-1", nil)}}, acc.ID, 201, `"errors":{}`},
		{"missing invoices", map[string]any{}, acc.ID, 400, `"invoices"`},
		{"invalid date", map[string]any{"invoices": []any{invoice("s-2", map[string]any{"date": "nope"})}}, acc.ID, 422, `"param":"invoices[0].date"`},
		{"unknown plan", map[string]any{"invoices": []any{invoice("s-2", map[string]any{"line_items": []any{map[string]any{"type": "subscription",
			"subscription_external_id": "x", "plan_uuid": "pl_00000000-0000-0000-0000-000000000000", "service_period_start": "2024-03-01",
			"amount_in_cents": 1}}})}}, acc.ID, 422, `line_items[0].plan_uuid`},
		{"overpaid", map[string]any{"invoices": []any{invoice("s-2", map[string]any{"transactions": []any{
			map[string]any{"type": "payment", "result": "successful", "date": "2024-03-02", "amount_in_cents": 5000}}})}}, acc.ID, 422, `"error"`},
		{"other account's customer", map[string]any{"invoices": []any{invoice("s-3", nil)}}, other.ID, 404, `Customer not found`},
	}
	for _, tc := range cases {
		t.Run("import/"+tc.name, func(t *testing.T) {
			resp := apitest.Raw(t, env.API, "ImportCustomerInvoices", apigwtest.Call{PathParams: map[string]string{"customer_uuid": cus},
				Body: tc.body, AccountID: tc.account})
			if resp.StatusCode != tc.status || !strings.Contains(resp.Body, tc.want) {
				t.Fatalf("%d %s", resp.StatusCode, resp.Body)
			}
		})
	}
	// GET /v1/invoices: filters, customer_uuid on each, no legacy page keys (recorded), cursor.
	get := func(q url.Values, account string) (int, map[string]any) {
		return apitest.Do(t, env.API, "ListInvoices", apigwtest.Call{Query: q, AccountID: account})
	}
	listCases := []struct {
		name  string
		query url.Values
		count int
	}{
		{"all", nil, 3},
		{"by customer", url.Values{"customer_uuid": {cus}}, 3},
		{"by data source", url.Values{"data_source_uuid": {ds.UUID}}, 3},
		{"by external id", url.Values{"data_source_uuid": {ds.UUID}, "external_id": {"s-1"}}, 1},
		{"invalid ones", url.Values{"validation_type": {"invalid"}}, 0},
	}
	for _, tc := range listCases {
		t.Run("list/"+tc.name, func(t *testing.T) {
			status, body := get(tc.query, acc.ID)
			invs, _ := body["invoices"].([]any)
			if status != 200 || len(invs) != tc.count || !reflect.DeepEqual(slices.Sorted(maps.Keys(body)), []string{"cursor", "has_more", "invoices"}) {
				t.Fatalf("%d %v", status, body)
			}
			for _, raw := range invs {
				if raw.(map[string]any)["customer_uuid"] != cus {
					t.Fatalf("customer_uuid missing: %v", raw)
				}
			}
		})
	}
	if _, body := get(nil, other.ID); len(body["invoices"].([]any)) != 0 {
		t.Fatalf("other account sees invoices: %v", body)
	}
	_, p1 := get(url.Values{"per_page": {"2"}}, acc.ID)
	if p1["has_more"] != true || len(p1["invoices"].([]any)) != 2 {
		t.Fatalf("page 1 %v", p1)
	}
	_, p2 := get(url.Values{"per_page": {"2"}, "cursor": {p1["cursor"].(string)}}, acc.ID)
	if p2["has_more"] != false || len(p2["invoices"].([]any)) != 1 {
		t.Fatalf("page 2 %v", p2)
	}
	if status, _ := get(url.Values{"cursor": {p1["cursor"].(string) + "x"}}, acc.ID); status != 400 {
		t.Fatalf("tampered cursor: %d", status)
	}
	// POST /v1/import/invoices/{uuid}/transactions.
	_, one := get(url.Values{"data_source_uuid": {ds.UUID}, "external_id": {"c00-i1"}}, acc.ID)
	invUUID := one["invoices"].([]any)[0].(map[string]any)["uuid"].(string)
	txCases := []struct {
		name    string
		invoice string
		body    map[string]any
		account string
		status  int
		want    string
	}{
		{"refund", invUUID, map[string]any{"type": "refund", "result": "successful", "date": "2024-01-10", "external_id": "tr-1", "amount_in_cents": 500}, acc.ID, 201, `"external_id":"tr-1"`},
		{"without external id", invUUID, map[string]any{"type": "payment", "result": "failed", "date": "2024-01-11"}, acc.ID, 201, `"result":"failed"`},
		{"bad type", invUUID, map[string]any{"type": "gift", "result": "successful", "date": "2024-01-10"}, acc.ID, 422, `"param":"type"`},
		{"other account", invUUID, map[string]any{"type": "payment", "result": "successful", "date": "2024-01-10"}, other.ID, 404, `Invoice not found`},
		{"malformed uuid", "inv_nope", map[string]any{"type": "payment", "result": "successful", "date": "2024-01-10"}, acc.ID, 422, `Invalid UUID passed`},
	}
	for _, tc := range txCases {
		t.Run("transaction/"+tc.name, func(t *testing.T) {
			resp := apitest.Raw(t, env.API, "CreateInvoiceTransaction", apigwtest.Call{PathParams: map[string]string{"invoice_uuid": tc.invoice},
				Body: tc.body, AccountID: tc.account})
			if resp.StatusCode != tc.status || !strings.Contains(resp.Body, tc.want) {
				t.Fatalf("%d %s", resp.StatusCode, resp.Body)
			}
		})
	}
	inv, err := env.Deps.Store.GetInvoice(ctx, acc.ID, invUUID)
	if err != nil || len(inv.Transactions) != 3 {
		t.Fatalf("transactions %+v %v", inv.Transactions, err)
	}
}
