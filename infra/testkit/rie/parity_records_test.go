//go:build linux

package rie

import (
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/routes"
)

// The parity cases of the billing record operations (line items, transactions, the
// disabled states, invoice updates, a customer's invoices of a source), the json_imports
// listing, PUT plans and the activities export. Their objects are the records fixture's,
// made once on the shared account, so that no other case sees them change.

// records are the shared account's objects these cases read and change: one invoice per
// case that changes one, each line item and transaction with an external id.
type records struct {
	cust, custDelAll string
	inv              map[string]invoiceRecords // by invoice external id
	event            map[string]float64        // subscription event ids by external id
	export           string                    // a succeeded activities export
}

type invoiceRecords struct{ uuid, line, tx string }

var (
	recordsOnce sync.Once
	recordsOf   *records
)

// recordsFixture makes the records on the shared account the first time a case asks.
func recordsFixture(f *fixture) *records {
	recordsOnce.Do(func() {
		r := &records{inv: map[string]invoiceRecords{}, event: map[string]float64{}}
		r.cust = f.customer("cus-records", "Records Customer", "records@parity.example")
		for _, ext := range []string{"rec-get", "rec-upd", "rec-upd-ext", "rec-del", "rec-del-ext", "rec-dis", "rec-dis-ext",
			"rec-inv-dis", "rec-inv-dis-ext", "rec-inv-upd", "rec-inv-upd-ext"} {
			r.inv[ext] = f.recordInvoice(r.cust, ext)
		}
		r.custDelAll = f.customer("cus-del-all", "Invoices Deleted", "delall@parity.example")
		f.recordInvoice(r.custDelAll, "rec-del-all")
		for _, ext := range []string{"ev-dis", "ev-dis-ext"} {
			body := eventBody(f.ds, ext)
			body["customer_external_id"] = "cus-records"
			r.event[ext] = f.create("CreateSubscriptionEventFunction", nil, map[string]any{"subscription_event": body})["id"].(float64)
		}
		r.export = f.call(200, "CreateActivitiesExportFunction", nil, nil, map[string]any{"start-date": fixtureFrom})["id"].(string)
		testenv.Drain(f.t, f.env.Deps, f.env.JobsQueueURL, routes.Workers["JobsWorkerFunction"](f.env.Workers))
		recordsOf = r
	})
	return recordsOf
}

// recordInvoice imports an invoice of one gold line item ("li-"+ext) and one payment
// ("tr-"+ext) for February 2025.
func (f *fixture) recordInvoice(cust, ext string) invoiceRecords {
	f.t.Helper()
	body := f.create("ImportCustomerInvoicesFunction", map[string]string{"customer_uuid": cust}, map[string]any{"invoices": []map[string]any{{
		"external_id": ext, "date": "2025-02-01T00:00:00Z", "currency": "USD",
		"line_items": []map[string]any{{"type": "subscription", "external_id": "li-" + ext, "subscription_external_id": "sub-" + ext,
			"plan_uuid": f.plan, "service_period_start": "2025-02-01T00:00:00Z", "service_period_end": "2025-03-01T00:00:00Z",
			"amount_in_cents": 2500}},
		"transactions": []map[string]any{{"external_id": "tr-" + ext, "date": "2025-02-01T00:00:00Z", "type": "payment", "result": "successful"}},
	}}})
	inv := body["invoices"].([]any)[0].(map[string]any)
	return invoiceRecords{uuid: inv["uuid"].(string),
		line: inv["line_items"].([]any)[0].(map[string]any)["uuid"].(string),
		tx:   inv["transactions"].([]any)[0].(map[string]any)["uuid"].(string)}
}

func byExternalID(f *fixture, ext string) url.Values {
	return url.Values{"data_source_uuid": {f.ds}, "external_id": {ext}}
}

// storedRecord reads a line item or transaction back in-process (disabled ones too).
func storedRecord(t *testing.T, f *fixture, get, param, uuid string) map[string]any {
	t.Helper()
	return f.get(t, get, map[string]string{param: uuid}, url.Values{"with_disabled": {"true"}})
}

// recordCases are the cases of one kind of record (line items or transactions).
func recordCases(kind, param string, uuidOf func(invoiceRecords) string, prefix string, update map[string]any, check string) map[string]parityCase {
	get, upd, del, dis := "Get"+kind+"Function", "Update"+kind+"Function", "Delete"+kind+"Function", "Set"+kind+"DisabledFunction"
	byExt := func(name string) string { return strings.TrimSuffix(name, "Function") + "ByExternalIdFunction" }
	expect := func(want any) func(t *testing.T, f *fixture, b map[string]any) {
		return func(t *testing.T, f *fixture, b map[string]any) {
			if fmt.Sprint(b[check]) != fmt.Sprint(want) {
				t.Errorf("answer %s = %v, want %v: %v", check, b[check], want, b)
			}
			if got := storedRecord(t, f, get, param, b["uuid"].(string)); fmt.Sprint(got[check]) != fmt.Sprint(want) {
				t.Errorf("stored: %v", got)
			}
		}
	}
	gone := func(uuid func(*records) string) func(t *testing.T, f *fixture, b map[string]any) {
		return func(t *testing.T, f *fixture, b map[string]any) {
			if s, _ := f.try(get, map[string]string{param: uuid(recordsFixture(f))}, nil, nil); s != 404 {
				t.Errorf("the deleted record answers %d", s)
			}
		}
	}
	disabled := func(t *testing.T, f *fixture, b map[string]any) {
		if b["disabled"] != true || b["disabled_by"] != testenv.Member.Email {
			t.Errorf("answer: %v", b)
		}
		if got := storedRecord(t, f, get, param, b["uuid"].(string)); got["disabled"] != true {
			t.Errorf("stored: %v", got)
		}
	}
	on := map[string]any{"disabled": true}
	return map[string]parityCase{
		get: {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{param: uuidOf(r.inv["rec-get"])}, Status: 200,
				Check: func(t *testing.T, f *fixture, b map[string]any) {
					has(t, strings.ToLower(kind), b, map[string]any{"uuid": uuidOf(r.inv["rec-get"]), "external_id": prefix + "rec-get", "disabled": false})
				}}
		}},
		byExt(get): {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Query: byExternalID(f, prefix+"rec-get"), Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, strings.ToLower(kind), b, map[string]any{"uuid": uuidOf(r.inv["rec-get"])})
			}}
		}},
		upd: {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{param: uuidOf(r.inv["rec-upd"])}, Body: update, Status: 200, Check: expect(update[check])}
		}},
		byExt(upd): {api: func(f *fixture) apiCase {
			recordsFixture(f)
			return apiCase{Query: byExternalID(f, prefix+"rec-upd-ext"), Body: update, Status: 200, Check: expect(update[check])}
		}},
		del: {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{param: uuidOf(r.inv["rec-del"])}, Status: 204,
				Check: gone(func(r *records) string { return uuidOf(r.inv["rec-del"]) })}
		}},
		byExt(del): {api: func(f *fixture) apiCase {
			recordsFixture(f)
			return apiCase{Query: byExternalID(f, prefix+"rec-del-ext"), Status: 204,
				Check: gone(func(r *records) string { return uuidOf(r.inv["rec-del-ext"]) })}
		}},
		dis: {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{param: uuidOf(r.inv["rec-dis"])}, Body: on, Status: 200, Check: disabled}
		}},
		byExt(dis): {api: func(f *fixture) apiCase {
			recordsFixture(f)
			return apiCase{Query: byExternalID(f, prefix+"rec-dis-ext"), Body: on, Status: 200, Check: disabled}
		}},
	}
}

func init() {
	add := func(cases map[string]parityCase) {
		for id, c := range cases {
			if _, dup := parityCases[id]; dup {
				panic("parity case " + id + " defined twice")
			}
			parityCases[id] = c
		}
	}
	add(recordCases("LineItem", "line_item_uuid", func(i invoiceRecords) string { return i.line }, "li-",
		map[string]any{"amount_in_cents": 4200}, "amount_in_cents"))
	add(recordCases("Transaction", "transaction_uuid", func(i invoiceRecords) string { return i.tx }, "tr-",
		map[string]any{"result": "failed"}, "result"))
	add(map[string]parityCase{
		"CreateInvoiceLineItemFunction": {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{"invoice_uuid": r.inv["rec-get"].uuid},
				Body:   map[string]any{"type": "one_time", "external_id": "li-added", "amount_in_cents": 990, "description": "setup"},
				Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
					has(t, "line item", b, map[string]any{"external_id": "li-added", "amount_in_cents": 990, "type": "one_time"})
					storedRecord(t, f, "GetLineItemFunction", "line_item_uuid", b["uuid"].(string))
				}}
		}},
		"SetInvoiceDisabledFunction": {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{"invoice_uuid": r.inv["rec-inv-dis"].uuid}, Body: map[string]any{"disabled": true},
				Status: 200, Check: disabledInvoice("rec-inv-dis")}
		}},
		"SetInvoiceDisabledByExternalIdFunction": {api: func(f *fixture) apiCase {
			recordsFixture(f)
			return apiCase{Query: byExternalID(f, "rec-inv-dis-ext"), Body: map[string]any{"disabled": true},
				Status: 200, Check: disabledInvoice("rec-inv-dis-ext")}
		}},
		"UpdateInvoiceFunction": {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{"invoice_uuid": r.inv["rec-inv-upd"].uuid}, Body: map[string]any{"due_date": "2025-02-15T00:00:00Z"},
				Status: 200, Check: updatedInvoice("rec-inv-upd")}
		}},
		"UpdateInvoiceByExternalIdFunction": {api: func(f *fixture) apiCase {
			recordsFixture(f)
			return apiCase{Query: byExternalID(f, "rec-inv-upd-ext"), Body: map[string]any{"due_date": "2025-02-15T00:00:00Z"},
				Status: 200, Check: updatedInvoice("rec-inv-upd-ext")}
		}},
		"DeleteCustomerInvoicesFunction": {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{"data_source_uuid": f.ds, "customer_uuid": r.custDelAll}, Status: 204,
				Check: func(t *testing.T, f *fixture, b map[string]any) {
					got := f.get(t, "ListImportInvoicesFunction", map[string]string{"customer_uuid": r.custDelAll}, nil)
					if len(list(t, got, "invoices")) != 0 {
						t.Errorf("invoices left: %v", got)
					}
				}}
		}},
		"SetSubscriptionEventDisabledFunction": {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{"id": fmt.Sprint(int64(r.event["ev-dis"]))}, Body: map[string]any{"disabled": true},
				Status: 200, Check: disabledEvent("ev-dis")}
		}},
		"SetSubscriptionEventDisabledByExternalIdFunction": {api: func(f *fixture) apiCase {
			recordsFixture(f)
			return apiCase{Body: map[string]any{"disabled": true, "data_source_uuid": f.ds, "external_id": "ev-dis-ext"},
				Status: 200, Check: disabledEvent("ev-dis-ext")}
		}},
		"ListJsonImportsFunction": {api: func(f *fixture) apiCase {
			return apiCase{Params: map[string]string{"data_source_uuid": f.ds}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				if !anyWith(list(t, b, "json_imports"), "id", f.importID) {
					t.Errorf("the fixture's import is not listed: %v", b)
				}
			}}
		}},
		"PutPlanFunction": {api: func(f *fixture) apiCase {
			return apiCase{Params: map[string]string{"plan_uuid": f.planUpd}, Body: map[string]any{"name": "Silver by PUT"}, Status: 202,
				Check: func(t *testing.T, f *fixture, b map[string]any) {
					got := f.get(t, "GetPlanFunction", map[string]string{"plan_uuid": f.planUpd}, nil)
					has(t, "stored plan", got, map[string]any{"name": "Silver by PUT"})
				}}
		}},
		"CreateActivitiesExportFunction": {api: func(f *fixture) apiCase {
			return apiCase{Body: map[string]any{"type": "new_biz", "start-date": fixtureFrom}, Status: 200,
				Check: func(t *testing.T, f *fixture, b map[string]any) {
					got := f.get(t, "GetActivitiesExportFunction", map[string]string{"id": b["id"].(string)}, nil)
					has(t, "stored export", got, map[string]any{"status": "pending"})
				}}
		}},
		// The URL is presigned by the bootstrap with Lambda's environment (no CA bundle)
		// and must download the CSV the jobs worker wrote.
		"GetActivitiesExportFunction": {api: func(f *fixture) apiCase {
			r := recordsFixture(f)
			return apiCase{Params: map[string]string{"id": r.export}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				u, _ := b["file_url"].(string)
				if b["status"] != "succeeded" || u == "" {
					t.Fatalf("export: %v", b)
				}
				resp, err := http.Get(u)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				rows, err := csv.NewReader(resp.Body).ReadAll()
				if err != nil || resp.StatusCode != 200 || len(rows) < 2 || rows[0][len(rows[0])-1] != "uuid" {
					raw, _ := io.ReadAll(resp.Body)
					t.Errorf("download: %d %v %q %s", resp.StatusCode, err, rows, raw)
				}
			}}
		}},
	})
}

func disabledInvoice(ext string) func(t *testing.T, f *fixture, b map[string]any) {
	return func(t *testing.T, f *fixture, b map[string]any) {
		if b["disabled"] != true || b["external_id"] != ext {
			t.Errorf("answer: %v", b)
		}
		got := f.get(t, "ListInvoicesFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {ext}})
		if len(list(t, got, "invoices")) != 0 {
			t.Errorf("the disabled invoice is listed without with_disabled: %v", got)
		}
	}
}

func updatedInvoice(ext string) func(t *testing.T, f *fixture, b map[string]any) {
	return func(t *testing.T, f *fixture, b map[string]any) {
		got := f.get(t, "ListInvoicesFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {ext}})
		if inv := list(t, got, "invoices"); len(inv) != 1 || inv[0]["due_date"] != "2025-02-15T00:00:00.000Z" {
			t.Errorf("stored invoice: %v", got)
		}
	}
}

func disabledEvent(ext string) func(t *testing.T, f *fixture, b map[string]any) {
	return func(t *testing.T, f *fixture, b map[string]any) {
		if b["disabled"] != true || b["external_id"] != ext {
			t.Errorf("answer: %v", b)
		}
		got := f.get(t, "ListSubscriptionEventsFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {ext},
			"with_disabled": {"true"}})
		if e := list(t, got, "subscription_events"); len(e) != 1 || e[0]["disabled"] != true {
			t.Errorf("stored event: %v", got)
		}
	}
}
