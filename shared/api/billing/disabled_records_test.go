package billing_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// TestDisabledRecordsStopCounting: disabling an invoice, a line item, a transaction or a
// subscription event (by uuid or by data source and external id) recomputes the
// customer without it, and enabling it restores exactly the metrics it had; the record
// is shown as disabled only when asked for with with_disabled.
func TestDisabledRecordsStopCounting(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	ds := b.F.DS.UUID
	invs := b.ImportInvoices(
		b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 1000, "successful"),
		b.MonthInvoice("feb", "s1", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 3000, "failed"))
	febLine := invs[1]["line_items"].([]any)[0].(map[string]any)["uuid"].(string)
	febTx := invs[1]["transactions"].([]any)[0].(map[string]any)["uuid"].(string)
	before := b.Recompute()
	if before.MRR != 3000 || before.Status != "Past Due" {
		t.Fatalf("before: %+v", before)
	}

	type toggle struct {
		op     string
		params map[string]string
		query  map[string][]string
		body   map[string]any // besides "disabled"
	}
	byExt := func(ext string) map[string][]string {
		return map[string][]string{"data_source_uuid": {ds}, "external_id": {ext}}
	}
	for _, tc := range []struct {
		name     string
		toggle   toggle
		disabled apitest.Metrics // what the customer shows while the record is disabled
	}{
		{"line item by uuid: the renewal goes, MRR back to January's",
			toggle{"SetLineItemDisabled", map[string]string{"line_item_uuid": febLine}, nil, nil},
			apitest.Metrics{MRR: 1000, Status: "Past Due"}},
		{"line item by external id",
			toggle{"SetLineItemDisabledByExternalId", nil, byExt("li-feb"), nil},
			apitest.Metrics{MRR: 1000, Status: "Past Due"}},
		{"transaction by uuid: the failed payment goes, no longer past due",
			toggle{"SetTransactionDisabled", map[string]string{"transaction_uuid": febTx}, nil, nil},
			apitest.Metrics{MRR: 3000, Status: "Active"}},
		{"transaction by external id",
			toggle{"SetTransactionDisabledByExternalId", nil, byExt("tr-feb"), nil},
			apitest.Metrics{MRR: 3000, Status: "Active"}},
		{"invoice by uuid: with its line items and transactions",
			toggle{"SetInvoiceDisabled", map[string]string{"invoice_uuid": invs[1]["uuid"].(string)}, nil, nil},
			apitest.Metrics{MRR: 1000, Status: "Past Due"}},
		{"invoice by external id: the only January invoice, the subscription starts in February",
			toggle{"SetInvoiceDisabledByExternalId", nil, byExt("jan"), nil},
			apitest.Metrics{MRR: 3000, Status: "Past Due"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := func(disabled bool) map[string]any {
				t.Helper()
				body := map[string]any{"disabled": disabled}
				status, got := b.Call(tc.toggle.op, tc.toggle.params, tc.toggle.query, body)
				if status != 200 || got["disabled"] != disabled {
					t.Fatalf("disabled=%v: %d %v", disabled, status, got)
				}
				return got
			}
			got := set(true)
			if got["disabled_by"] != testenv.Member.Email || got["disabled_at"] != "2024-02-10T00:00:00.000Z" {
				t.Errorf("disabled state: %v", got)
			}
			m := b.Recompute()
			if m.MRR != tc.disabled.MRR || m.Status != tc.disabled.Status {
				t.Errorf("disabled: %+v, want %+v", m, tc.disabled)
			}
			if again := set(true); again["disabled_at"] != got["disabled_at"] {
				t.Errorf("disabling again changed the state: %v", again)
			}
			b.F.Env.ReceiveJobs(t)
			if got = set(false); got["disabled_at"] != nil || got["disabled_by"] != nil {
				t.Errorf("enabled: %v", got)
			}
			if m := b.Recompute(); !reflect.DeepEqual(m, before) {
				t.Errorf("enabled again: %+v, want exactly %+v", m, before)
			}
		})
	}
}

// TestDisabledRecordsAreShownOnlyWhenAsked: a disabled line item, transaction or invoice
// is left out of the invoice views and not found by its retrieve without
// with_disabled=true, and shown with its state with it.
func TestDisabledRecordsAreShownOnlyWhenAsked(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	ds := b.F.DS.UUID
	invs := b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 1000, "successful"))
	line := invs[0]["line_items"].([]any)[0].(map[string]any)["uuid"].(string)
	tx := invs[0]["transactions"].([]any)[0].(map[string]any)["uuid"].(string)
	list := func(withDisabled bool) []any {
		t.Helper()
		q := map[string][]string{"data_source_uuid": {ds}}
		if withDisabled {
			q["with_disabled"] = []string{"true"}
		}
		status, body := b.Call("ListInvoices", nil, q, nil)
		if status != 200 {
			t.Fatalf("list: %d %v", status, body)
		}
		return body["invoices"].([]any)
	}
	if got := list(false)[0].(map[string]any); got["disabled"] != nil {
		t.Errorf("the disabled state is shown without with_disabled: %v", got)
	}
	for _, p := range []struct {
		op, param, uuid string
	}{
		{"SetLineItemDisabled", "line_item_uuid", line},
		{"SetTransactionDisabled", "transaction_uuid", tx},
	} {
		if status, body := b.Call(p.op, map[string]string{p.param: p.uuid}, nil, map[string]any{"disabled": true}); status != 200 {
			t.Fatalf("disable %s: %d %v", p.uuid, status, body)
		}
	}
	inv := list(false)[0].(map[string]any)
	if len(inv["line_items"].([]any)) != 0 || len(inv["transactions"].([]any)) != 0 {
		t.Errorf("disabled records listed without with_disabled: %v", inv)
	}
	inv = list(true)[0].(map[string]any)
	li := inv["line_items"].([]any)[0].(map[string]any)
	tr := inv["transactions"].([]any)[0].(map[string]any)
	if inv["disabled"] != false || li["disabled"] != true || tr["disabled"] != true || li["disabled_by"] != testenv.Member.Email {
		t.Errorf("with_disabled: invoice %v", inv)
	}
	for _, g := range []struct {
		op, param, uuid string
	}{
		{"GetLineItem", "line_item_uuid", line},
		{"GetTransaction", "transaction_uuid", tx},
	} {
		if status, body := b.Call(g.op, map[string]string{g.param: g.uuid}, nil, nil); status != 404 {
			t.Errorf("GET disabled %s: %d %v", g.uuid, status, body)
		}
		status, body := b.Call(g.op, map[string]string{g.param: g.uuid}, map[string][]string{"with_disabled": {"true"}}, nil)
		if status != 200 || body["uuid"] != g.uuid || body["disabled"] != true {
			t.Errorf("GET disabled %s with_disabled: %d %v", g.uuid, status, body)
		}
	}
	if status, _ := b.Call("SetInvoiceDisabledByExternalId", nil,
		map[string][]string{"data_source_uuid": {ds}, "external_id": {"jan"}}, map[string]any{"disabled": true}); status != 200 {
		t.Fatalf("disable the invoice: %d", status)
	}
	if got := list(false); len(got) != 0 {
		t.Errorf("a disabled invoice is listed without with_disabled: %v", got)
	}
	if got := list(true); len(got) != 1 || got[0].(map[string]any)["disabled"] != true {
		t.Errorf("with_disabled: %v", got)
	}
	params := map[string]string{"invoice_uuid": invs[0]["uuid"].(string)}
	if status, _ := b.Call("GetInvoice", params, nil, nil); status != 404 {
		t.Errorf("GET a disabled invoice: %d", status)
	}
	if status, body := b.Call("GetInvoice", params, map[string][]string{"with_disabled": {"true"}}, nil); status != 200 || body["disabled"] != true {
		t.Errorf("GET a disabled invoice with_disabled: %d %v", status, body)
	}
}

// TestDisabledStateErrors: the errors of the disabled_state endpoints, in family B.
func TestDisabledStateErrors(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	invs := b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 1000, "successful"))
	line := invs[0]["line_items"].([]any)[0].(map[string]any)["uuid"].(string)
	for _, tc := range []struct {
		name    string
		account string
		params  map[string]string
		query   map[string][]string
		body    any
		status  int
		want    string
	}{
		{"no disabled", b.Acc, map[string]string{"line_item_uuid": line}, nil, map[string]any{}, 400,
			bodyB(`Parameter "disabled" is missing`, "disabled")},
		{"disabled not a boolean", b.Acc, map[string]string{"line_item_uuid": line}, nil, map[string]any{"disabled": "yes"}, 400, ""},
		{"unknown line item", b.Acc, map[string]string{"line_item_uuid": "li_00000000-0000-4000-8000-000000000000"}, nil,
			map[string]any{"disabled": true}, 404, bodyB("Line item not found", "line_item")},
		{"malformed uuid", b.Acc, map[string]string{"line_item_uuid": "li_nope"}, nil, map[string]any{"disabled": true}, 422,
			bodyB("Invalid UUID passed", "uuid")},
		{"another account's line item", "acc_other", map[string]string{"line_item_uuid": line}, nil, map[string]any{"disabled": true}, 404,
			bodyB("Line item not found", "line_item")},
		{"by external id without data_source_uuid", b.Acc, nil, map[string][]string{"external_id": {"li-jan"}},
			map[string]any{"disabled": true}, 400, bodyB(`Parameter "data_source_uuid" is missing`, "data_source_uuid")},
		{"by external id without external_id", b.Acc, nil, map[string][]string{"data_source_uuid": {b.F.DS.UUID}},
			map[string]any{"disabled": true}, 400, bodyB(`Parameter "external_id" is missing`, "external_id")},
		{"by an unknown external id", b.Acc, nil, map[string][]string{"data_source_uuid": {b.F.DS.UUID}, "external_id": {"li-nope"}},
			map[string]any{"disabled": true}, 404, bodyB("Line item not found", "line_item")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := "SetLineItemDisabled"
			if tc.params == nil {
				op = "SetLineItemDisabledByExternalId"
			}
			status, body := apitest.Do(t, b.D, op, apigwtest.Call{
				PathParams: tc.params, Query: tc.query, Body: tc.body, AccountID: tc.account})
			raw, _ := json.Marshal(body)
			if status != tc.status || (tc.want != "" && string(raw) != tc.want) {
				t.Errorf("%d %s, want %d %s", status, raw, tc.status, tc.want)
			}
		})
	}
	if jobs := b.F.Env.ReceiveJobs(t); len(jobs) > 1 {
		t.Errorf("a refused request enqueued a job: %+v", jobs)
	}
}

// TestDisabledEventStopsCounting: a disabled subscription event (by id, or by data
// source and external id in the body as chartmogul-python sends them) counts for
// nothing, is left out of the event listing without with_disabled, and enabling it
// restores the metrics exactly.
func TestDisabledEventStopsCounting(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	ds := b.F.DS.UUID
	b.ImportInvoices(b.MonthInvoice("feb", "s1", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 3000, "successful"))
	status, ev := b.Call("CreateSubscriptionEvent", nil, nil, map[string]any{"subscription_event": map[string]any{
		"data_source_uuid": ds, "customer_external_id": "c1", "subscription_external_id": "s1", "external_id": "ev-cancel",
		"event_type": "subscription_cancelled", "event_date": "2024-02-05", "effective_date": "2024-02-05"}})
	if status != 201 {
		t.Fatalf("create the event: %d %v", status, ev)
	}
	before := b.Recompute()
	if before.MRR != 0 || before.Status != "Cancelled" {
		t.Fatalf("with the cancellation: %+v", before)
	}
	listed := func(withDisabled bool) []any {
		q := map[string][]string{"data_source_uuid": {ds}}
		if withDisabled {
			q["with_disabled"] = []string{"true"}
		}
		_, body := b.Call("ListSubscriptionEvents", nil, q, nil)
		return body["subscription_events"].([]any)
	}
	for _, tc := range []struct {
		name   string
		op     string
		params map[string]string
		body   map[string]any
	}{
		{"by id", "SetSubscriptionEventDisabled", map[string]string{"id": strconv.FormatFloat(ev["id"].(float64), 'f', -1, 64)}, map[string]any{}},
		{"by external id in the body", "SetSubscriptionEventDisabledByExternalId", nil,
			map[string]any{"data_source_uuid": ds, "external_id": "ev-cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := func(disabled bool) {
				t.Helper()
				body := map[string]any{"disabled": disabled}
				for k, v := range tc.body {
					body[k] = v
				}
				status, got := b.Call(tc.op, tc.params, nil, body)
				if status != 200 || got["disabled"] != disabled || got["id"] == nil || got["external_id"] != "ev-cancel" {
					t.Fatalf("disabled=%v: %d %v", disabled, status, got)
				}
			}
			set(true)
			if m := b.Recompute(); m.MRR != 3000 || m.Status != "Active" {
				t.Errorf("disabled: %+v", m)
			}
			if got := listed(false); len(got) != 0 {
				t.Errorf("listed without with_disabled: %v", got)
			}
			if got := listed(true); len(got) != 1 || got[0].(map[string]any)["disabled"] != true {
				t.Errorf("listed with with_disabled: %v", got)
			}
			set(false)
			if m := b.Recompute(); !reflect.DeepEqual(m, before) {
				t.Errorf("enabled again: %+v, want exactly %+v", m, before)
			}
		})
	}
}
