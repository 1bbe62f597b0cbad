package jsonimports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
)

func TestJSONImportEndToEnd(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Bulk")
	ds := env.NewDataSource(t, acc.ID, "Billing")
	params := map[string]string{"data_source_uuid": ds.UUID}
	status, body := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{PathParams: params,
		Body: apitest.FiftyCustomers("batch-50"), AccountID: acc.ID})
	if status != http.StatusOK || body["status"] != "queued" || body["external_id"] != "batch-50" ||
		len(body["status_details"].(map[string]any)) != 0 || strings.HasPrefix(body["id"].(string), "imp") {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	env.DrainImports(t)
	for _, key := range []string{"batch-50", id} {
		params := map[string]string{"data_source_uuid": ds.UUID, "import_id": key}
		status, body = apitest.Do(t, env.API, "GetJsonImport", apigwtest.Call{PathParams: params, AccountID: acc.ID})
		details, _ := body["status_details"].(map[string]any)
		if status != http.StatusOK || body["status"] != "completed" || len(details) != 51 {
			t.Fatalf("get %s: %d %v", key, status, body)
		}
		c07 := details["c07"].(map[string]any)
		for _, k := range []string{"customers", "invoices", "line_items", "transactions", "subscription_events"} {
			if c07[k].(map[string]any)["status"] != "imported" || c07["status"] != "imported" {
				t.Fatalf("c07 %v", c07)
			}
		}
	}
	// Every record is readable through the invoice and subscription views.
	seen := 0
	for c := range 50 {
		cus := apitest.CustomerByExternalID(t, env, acc.ID, ds.UUID, fmt.Sprintf("c%02d", c))
		p := map[string]string{"customer_uuid": cus}
		status, body = apitest.Do(t, env.API, "ListImportInvoices", apigwtest.Call{PathParams: p, AccountID: acc.ID})
		list := body["invoices"].([]any)
		if status != 200 || len(list) != 2 || body["total_pages"] != float64(1) || body["has_more"] != false {
			t.Fatalf("invoices: %d %v", status, body)
		}
		for _, raw := range list {
			inv := raw.(map[string]any)
			if len(inv["line_items"].([]any)) != 1 || len(inv["transactions"].([]any)) != 1 || inv["customer_uuid"] != nil {
				t.Fatalf("invoice %v", inv)
			}
			seen++
		}
		status, body = apitest.Do(t, env.API, "ListImportSubscriptions", apigwtest.Call{PathParams: p, AccountID: acc.ID})
		sl := body["subscriptions"].([]any)
		if status != 200 || len(sl) != 1 || sl[0].(map[string]any)["external_id"] != fmt.Sprintf("c%02d-s", c) {
			t.Fatalf("subscriptions: %d %v", status, body)
		}
	}
	if seen != 100 {
		t.Fatalf("%d invoices", seen)
	}
	// The same import external id is refused.
	status, body = apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{PathParams: params,
		Body: map[string]any{"external_id": "batch-50"}, AccountID: acc.ID})
	if status != 422 || body["param"] != "external_id" {
		t.Fatalf("duplicate: %d %v", status, body)
	}
}

func TestJSONImportIntakeErrors(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Bulk")
	other := env.NewAccount(t, "Other")
	ds := env.NewDataSource(t, acc.ID, "Billing")
	params := map[string]string{"data_source_uuid": ds.UUID}
	big := `{"external_id":"big","customers":[` + strings.Repeat(`{"external_id":"x"},`, model.MaxImportBytes/20) + `{"external_id":"y"}]}`
	cases := []struct {
		name    string
		body    any
		account string
		status  int
		want    string
	}{
		{"over 5 MB", big, acc.ID, 413, `{"code":413,"message":"The payload is larger than 5 MB; split it into several imports","param":null}`},
		{"not JSON", "{nope", acc.ID, 400, `"code":400`},
		{"missing external_id", map[string]any{"customers": []any{}}, acc.ID, 400, `"param":"external_id"`},
		{"first offending record named", map[string]any{"external_id": "e", "invoices": []any{
			map[string]any{"external_id": "i", "customer_external_id": "c", "date": "2024-01-01", "currency": "USD"},
			map[string]any{"external_id": "j", "customer_external_id": "c", "date": "bad", "currency": "USD"}}},
			acc.ID, 422, `"param":"invoices[1].date"`},
		{"other account's data source", map[string]any{"external_id": "e"}, other.ID, 404, `{"error":"Data source not found"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := apitest.Raw(t, env.API, "CreateJsonImport", apigwtest.Call{PathParams: params, Body: tc.body, AccountID: tc.account})
			if resp.StatusCode != tc.status || !strings.Contains(resp.Body, tc.want) {
				t.Fatalf("%d %s", resp.StatusCode, resp.Body)
			}
		})
	}
	// Nothing of a refused payload was recorded: the external id is still free.
	status, _ := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{PathParams: params,
		Body: map[string]any{"external_id": "e"}, AccountID: acc.ID})
	if status != 200 {
		t.Fatalf("external id of a refused payload: %d", status)
	}
}

func TestInvoiceViewsDeleteAndSubscriptionCancel(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Views")
	ds := env.NewDataSource(t, acc.ID, "Billing")
	params := map[string]string{"data_source_uuid": ds.UUID}
	p := apitest.FiftyCustomers("one")
	for _, k := range []string{"customers", "invoices", "line_items", "transactions", "subscription_events"} {
		n := 1
		if k == "invoices" || k == "line_items" || k == "transactions" {
			n = 2
		}
		p[k] = p[k].([]any)[:n]
	}
	if status, body := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{
		PathParams: params, Body: p, AccountID: acc.ID}); status != 200 {
		t.Fatalf("%d %v", status, body)
	}
	env.DrainImports(t)
	cus := apitest.CustomerByExternalID(t, env, acc.ID, ds.UUID, "c00")
	listInv := func(q url.Values) (int, map[string]any) {
		return apitest.Do(t, env.API, "ListImportInvoices", apigwtest.Call{
			PathParams: map[string]string{"customer_uuid": cus}, Query: q, AccountID: acc.ID})
	}
	// Pagination with a signed cursor; a tampered one is a 400.
	_, page1 := listInv(url.Values{"per_page": {"1"}})
	if page1["has_more"] != true || page1["total_pages"] != float64(2) {
		t.Fatalf("page 1 %v", page1)
	}
	_, page2 := listInv(url.Values{"per_page": {"1"}, "cursor": {page1["cursor"].(string)}})
	if page2["has_more"] != false || len(page2["invoices"].([]any)) != 1 || page2["total_pages"] != nil {
		t.Fatalf("page 2 %v", page2)
	}
	if status, _ := listInv(url.Values{"cursor": {page1["cursor"].(string) + "x"}}); status != 400 {
		t.Fatalf("tampered cursor: %d", status)
	}
	if _, body := listInv(url.Values{"validation_type": {"invalid"}}); len(body["invoices"].([]any)) != 0 {
		t.Fatalf("invalid: %v", body)
	}
	first := page1["invoices"].([]any)[0].(map[string]any)
	invUUID := first["uuid"].(string)
	// GET /v1/invoices/{uuid}, including another account's 404 and a malformed id's 422.
	call := func(ep func() (int, map[string]any)) (int, map[string]any) { return ep() }
	status, body := call(func() (int, map[string]any) {
		return apitest.Do(t, env.API, "GetInvoice", apigwtest.Call{PathParams: map[string]string{"invoice_uuid": invUUID}, AccountID: acc.ID})
	})
	if status != 200 || body["customer_uuid"] != cus {
		t.Fatalf("get invoice %d %v", status, body)
	}
	other := env.NewAccount(t, "Other")
	if status, body = apitest.Do(t, env.API, "GetInvoice", apigwtest.Call{PathParams: map[string]string{"invoice_uuid": invUUID}, AccountID: other.ID}); status != 404 || body["error"] != "Invoice not found" {
		t.Fatalf("other account: %d %v", status, body)
	}
	if status, body = apitest.Do(t, env.API, "GetInvoice", apigwtest.Call{PathParams: map[string]string{"invoice_uuid": "inv_I_dont_exists"}, AccountID: acc.ID}); status != 422 || body["error"] != "Invalid UUID passed" {
		t.Fatalf("malformed: %d %v", status, body)
	}
	// Cancel the subscription, then replace its history.
	_, sb := apitest.Do(t, env.API, "ListImportSubscriptions", apigwtest.Call{PathParams: map[string]string{"customer_uuid": cus}, AccountID: acc.ID})
	subUUID := sb["subscriptions"].([]any)[0].(map[string]any)["uuid"].(string)
	status, body = apitest.Do(t, env.API, "UpdateImportSubscription", apigwtest.Call{
		PathParams: map[string]string{"subscription_uuid": subUUID}, Body: map[string]any{"cancelled_at": "2024-03-15"}, AccountID: acc.ID})
	if status != 202 || body["customer_uuid"] != cus || fmt.Sprint(body["cancellation_dates"]) != "[2024-03-15T00:00:00.000Z]" {
		t.Fatalf("cancel: %d %v", status, body)
	}
	status, body = apitest.Do(t, env.API, "UpdateImportSubscription", apigwtest.Call{
		PathParams: map[string]string{"subscription_uuid": subUUID}, Body: map[string]any{"cancellation_dates": []any{}}, AccountID: acc.ID})
	if status != 202 || len(body["cancellation_dates"].([]any)) != 0 {
		t.Fatalf("clear: %d %v", status, body)
	}
	// Delete both invoices: the subscription goes with the last one, and the plan is
	// free again.
	if status, _ = apitest.Do(t, env.API, "DeleteInvoice", apigwtest.Call{PathParams: map[string]string{"invoice_uuid": invUUID}, AccountID: acc.ID}); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	if status, _ = apitest.Do(t, env.API, "DeleteInvoice", apigwtest.Call{PathParams: map[string]string{"invoice_uuid": invUUID}, AccountID: acc.ID}); status != 404 {
		t.Fatalf("second delete: %d", status)
	}
	_, sb = apitest.Do(t, env.API, "ListImportSubscriptions", apigwtest.Call{PathParams: map[string]string{"customer_uuid": cus}, AccountID: acc.ID})
	if len(sb["subscriptions"].([]any)) != 1 {
		t.Fatalf("subscription removed while an invoice still uses it: %v", sb)
	}
	if status, body = apitest.Do(t, env.API, "DeleteInvoiceByExternalId", apigwtest.Call{
		Query: url.Values{"data_source_uuid": {ds.UUID}, "external_id": {"c00-i2"}, "handle_as_user_edit": {"true"}}, AccountID: acc.ID}); status != 204 {
		t.Fatalf("delete by external id: %d %v", status, body)
	}
	_, sb = apitest.Do(t, env.API, "ListImportSubscriptions", apigwtest.Call{PathParams: map[string]string{"customer_uuid": cus}, AccountID: acc.ID})
	if len(sb["subscriptions"].([]any)) != 0 {
		t.Fatalf("subscription survived its last invoice: %v", sb)
	}
	pl, err := env.Deps.Store.GetPlanByExternalID(context.Background(), acc.ID, ds.UUID, "p1")
	if err != nil || pl.References != 0 {
		t.Fatalf("plan references %d %v", pl.References, err)
	}
	_, body = listInv(nil)
	if b, _ := json.Marshal(body["invoices"]); string(b) != "[]" || body["total_pages"] != float64(0) {
		t.Fatalf("after deletes: %v", body)
	}
}
