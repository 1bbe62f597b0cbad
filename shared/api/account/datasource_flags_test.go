package account_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// TestListJSONImportsAndProcessingStatus: GET …/json_imports lists a data source's
// imports (cursor-paged, each with its status as its retrieve shows it), and
// with_processing_status counts their customers: pending before the worker ran,
// processed and failed after.
func TestListJSONImportsAndProcessingStatus(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Listing")
	ds := env.NewDataSource(t, acc.ID, "Billing")
	params := map[string]string{"data_source_uuid": ds.UUID}
	for _, body := range []map[string]any{
		{"external_id": "b-1", "customers": []any{map[string]any{"external_id": "c1", "name": "One"}, map[string]any{"external_id": "c2", "name": "Two"}}},
		{"external_id": "b-2", "customers": []any{map[string]any{"external_id": "c3", "name": "Three"}},
			"invoices": []any{map[string]any{"external_id": "i1", "customer_external_id": "c4", "date": "2024-01-01", "currency": "USD"}}},
	} {
		if status, got := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{
			PathParams: params, Body: body, AccountID: acc.ID}); status != http.StatusOK {
			t.Fatalf("import: %d %v", status, got)
		}
	}
	processing := func() map[string]any {
		t.Helper()
		status, got := apitest.Do(t, env.API, "GetDataSource", apigwtest.Call{
			PathParams: map[string]string{"uuid": ds.UUID}, Query: map[string][]string{"with_processing_status": {"true"}}, AccountID: acc.ID})
		if status != 200 {
			t.Fatalf("data source: %d %v", status, got)
		}
		return got["processing_status"].(map[string]any)
	}
	if got, _ := json.Marshal(processing()); string(got) != `{"failed":0,"pending":4,"processed":0}` {
		t.Errorf("before the worker: %s", got)
	}
	env.DrainImports(t)
	if got, _ := json.Marshal(processing()); string(got) != `{"failed":1,"pending":0,"processed":3}` {
		t.Errorf("after the worker: %s", got)
	}

	list := func(q map[string][]string) (int, map[string]any) {
		return apitest.Do(t, env.API, "ListJsonImports", apigwtest.Call{
			PathParams: params, Query: q, AccountID: acc.ID})
	}
	status, first := list(map[string][]string{"per_page": {"1"}})
	entries := first["json_imports"].([]any)
	if status != 200 || len(entries) != 1 || first["has_more"] != true || first["cursor"] == nil {
		t.Fatalf("first page: %d %v", status, first)
	}
	e := entries[0].(map[string]any)
	if e["external_id"] != "b-1" || e["status"] != "completed" || e["data_source_uuid"] != ds.UUID ||
		len(e["status_details"].(map[string]any)) != 3 {
		t.Errorf("first import: %v", e)
	}
	status, second := list(map[string][]string{"per_page": {"1"}, "cursor": {first["cursor"].(string)}})
	entries = second["json_imports"].([]any)
	if status != 200 || len(entries) != 1 || entries[0].(map[string]any)["external_id"] != "b-2" || second["has_more"] != false {
		t.Fatalf("second page: %d %v", status, second)
	}
	if status, _ := apitest.Do(t, env.API, "ListJsonImports", apigwtest.Call{
		PathParams: params, AccountID: "acc_other"}); status != 404 {
		t.Errorf("another account: %d", status)
	}
}

// TestDataSourceSettingFlags: with_auto_churn_subscription_setting and
// with_invoice_handling_setting add the account's settings the engine applies, on the
// listing and the retrieve; without the flags the keys are absent.
func TestDataSourceSettingFlags(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := env.NewAccount(t, "Flags")
	env.NewDataSource(t, acc.ID, "Billing")
	flags := map[string][]string{"with_auto_churn_subscription_setting": {"true"}, "with_invoice_handling_setting": {"true"}}
	read := func(q map[string][]string) map[string]any {
		t.Helper()
		status, got := apitest.Do(t, env.API, "ListDataSources", apigwtest.Call{
			Query: q, AccountID: acc.ID})
		if status != 200 {
			t.Fatalf("list: %d %v", status, got)
		}
		return got["data_sources"].([]any)[0].(map[string]any)
	}
	plain := read(nil)
	for _, k := range []string{"processing_status", "auto_churn_subscription_setting", "invoice_handling_setting"} {
		if _, ok := plain[k]; ok {
			t.Errorf("%s without its flag: %v", k, plain)
		}
	}
	got := read(flags)
	churn, _ := json.Marshal(got["auto_churn_subscription_setting"])
	handling, _ := json.Marshal(got["invoice_handling_setting"])
	// Decoded into maps, so the keys come sorted.
	rules := `{"create_subscription_when_invoice_is":"open","prevent_subscription_for_invoice_refunded":%s,` +
		`"prevent_subscription_for_invoice_voided":true,"prevent_subscription_for_invoice_written_off":true,` +
		`"update_subscription_when_invoice_is":"open"}`
	want := func(refunded string) string {
		r := fmt.Sprintf(rules, refunded)
		return `{"automatic":` + r + `,"manual":` + r + `}`
	}
	if string(churn) != `{"enabled":false,"interval":30}` || string(handling) != want("false") {
		t.Errorf("defaults: %s %s", churn, handling)
	}
	acc.Settings.AutoChurnSubscription, acc.Settings.RefundHandling = true, "refund_full_only"
	if err := env.Deps.Store.UpdateSettings(ctx, acc.ID, acc.Settings); err != nil {
		t.Fatal(err)
	}
	got = read(flags)
	churn, _ = json.Marshal(got["auto_churn_subscription_setting"])
	handling, _ = json.Marshal(got["invoice_handling_setting"])
	if string(churn) != `{"enabled":true,"interval":30}` || string(handling) != want("true") {
		t.Errorf("after set-setting: %s %s", churn, handling)
	}
	if status, _ := apitest.Do(t, env.API, "ListDataSources", apigwtest.Call{
		Query: map[string][]string{"with_processing_status": {"yes"}}, AccountID: acc.ID}); status != 400 {
		t.Errorf("a flag that is not a boolean: %d", status)
	}
}
