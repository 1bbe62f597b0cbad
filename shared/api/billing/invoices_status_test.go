package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// bodyB is a family B error body as a decoded-and-remarshalled map prints it (sorted keys).
func bodyB(message, param string) string {
	b, _ := json.Marshal(map[string]any{"error": message,
		"error_details": []any{map[string]any{"param": param, "code": "invalid", "message": message}}})
	return string(b)
}

// TestUpdateInvoiceStatus: validation (family B), the allowed transitions, the status on
// the invoice views, and the recomputation it enqueues, whose result leaves voided and
// written-off invoices out of the customer's metrics.
func TestUpdateInvoiceStatus(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-02-10T00:00:00Z"), true)
	d, acc, ds := f.D.API(), f.Acc.ID, f.DS.UUID
	f.AddInvoices(
		recomputetest.Invoice{Ext: "jan", Start: recomputetest.At("2024-01-01T00:00:00Z"), Amount: 1000, Paid: true},
		recomputetest.Invoice{Ext: "feb", Start: recomputetest.At("2024-02-01T00:00:00Z"), Amount: 3000, Paid: true})
	f.Run()
	if c := f.Customer(); c.MRR != 3000 || c.Status != "Active" {
		t.Fatalf("before: mrr %d status %s", c.MRR, c.Status)
	}
	f.Env.ReceiveJobs(t)
	put := func(account, dsUUID, ext string, body any) (int, map[string]any) {
		t.Helper()
		return apitest.Do(t, d, "UpdateInvoiceStatus", apigwtest.Call{
			PathParams: map[string]string{"data_source_uuid": dsUUID, "invoice_external_id": ext}, Body: body, AccountID: account})
	}
	voided := map[string]any{"status": "voided"}
	for _, tc := range []struct {
		name             string
		account, ds, ext string
		body             any
		status           int
		want             string
	}{
		{"not JSON", acc, ds, "feb", "{", 400,
			bodyB("The request body is not valid JSON", "base")},
		{"no status", acc, ds, "feb", map[string]any{}, 400,
			bodyB(`Parameter "status" is missing`, "status")},
		{"status not a string", acc, ds, "feb", map[string]any{"status": 1}, 400, ""},
		{"unknown status", acc, ds, "feb", map[string]any{"status": "paid"}, 422,
			bodyB("Status must be one of voided, written_off", "status")},
		{"unknown data source", acc, "ds_00000000-0000-4000-8000-000000000000", "feb", voided, 404, ""},
		{"malformed data source", acc, "nope", "feb", voided, 404, ""},
		{"another account's data source", "acc_other", ds, "feb", voided, 404, ""},
		{"unknown invoice", acc, ds, "mar", voided, 404,
			bodyB("Invoice not found", "invoice")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := put(tc.account, tc.ds, tc.ext, tc.body)
			raw, _ := json.Marshal(body)
			if status != tc.status || (tc.want != "" && string(raw) != tc.want) {
				t.Errorf("%d %s, want %d %s", status, raw, tc.status, tc.want)
			}
		})
	}
	if jobs := f.Env.ReceiveJobs(t); len(jobs) != 0 {
		t.Fatalf("a refused request enqueued %+v", jobs)
	}

	// Void February's invoice: the expansion goes, the subscription is not extended.
	status, body := put(acc, ds, "feb", voided)
	if raw, _ := json.Marshal(body); status != 200 || string(raw) != `{"external_id":"feb","status":"voided"}` {
		t.Fatalf("void: %d %s", status, raw)
	}
	sent := f.Env.ReceiveJobs(t)
	if len(sent) != 1 || sent[0].Type != jobs.RecomputeCustomer || sent[0].AccountID != acc || sent[0].CustomerUUID != f.Cust.UUID {
		t.Fatalf("jobs after void: %+v", sent)
	}
	f.Run()
	if c := f.Customer(); c.MRR != 1000 || c.Status != "Past Due" {
		t.Fatalf("after void: mrr %d status %s", c.MRR, c.Status)
	}
	_, inv := apitest.Do(t, d, "ListInvoices", apigwtest.Call{
		Query: map[string][]string{"data_source_uuid": {ds}, "external_id": {"feb"}}, AccountID: acc})
	if invs, _ := inv["invoices"].([]any); len(invs) != 1 || invs[0].(map[string]any)["status"] != "voided" {
		t.Fatalf("listed invoice: %v", inv)
	}

	// The same status again is accepted; a voided invoice cannot be written off.
	if status, body = put(acc, ds, "feb", voided); status != 200 || body["status"] != "voided" {
		t.Fatalf("void again: %d %v", status, body)
	}
	status, body = put(acc, ds, "feb", map[string]any{"status": "written_off"})
	if raw, _ := json.Marshal(body); status != 422 ||
		string(raw) != bodyB("Status transition is not allowed", "status") {
		t.Fatalf("voided -> written_off: %d %s", status, raw)
	}

	// Write January's off: nothing is left, the customer is a lead again; a written-off
	// invoice can still be voided.
	if status, body = put(acc, ds, "jan", map[string]any{"status": "written_off"}); status != 200 || body["status"] != "written_off" {
		t.Fatalf("write off: %d %v", status, body)
	}
	f.Run()
	if c := f.Customer(); c.MRR != 0 || c.Status != "New Lead" || c.CustomerSince != nil {
		t.Fatalf("after write-off: mrr %d status %s since %v", c.MRR, c.Status, c.CustomerSince)
	}
	if rows := f.SubscriptionRows(); len(rows) != 0 {
		t.Fatalf("subscription rows after write-off: %+v", rows)
	}
	if status, _ = put(acc, ds, "jan", voided); status != 200 {
		t.Fatalf("written_off -> voided: %d", status)
	}

	// The store refuses a change decided on a stale read, or on another customer's behalf.
	ctx := context.Background()
	stale, err := d.Store.GetInvoice(ctx, acc, model.InvoiceUUID(acc, ds, "jan"))
	if err != nil || stale.Status != "voided" {
		t.Fatalf("stored: %+v %v", stale.Status, err)
	}
	stale.Status = "written_off"
	if _, err := d.Store.SetInvoiceStatus(ctx, stale, "voided", d.Now()); !errors.Is(err, store.ErrConflict) {
		t.Errorf("stale status: %v, want ErrConflict", err)
	}
	stale.Status, stale.CustomerUUID = "voided", "cus_other"
	if _, err := d.Store.SetInvoiceStatus(ctx, stale, "voided", d.Now()); !errors.Is(err, store.ErrConflict) {
		t.Errorf("other customer: %v, want ErrConflict", err)
	}
}

// TestPatchInvoiceStatus: PATCH on the status route is the PUT's operation (the PUT is
// what chartmogul-node 3.12.3 lib/chartmogul/invoice.js updateStatus and
// chartmogul-python 4.11.0 chartmogul/api/invoice.py update_status send, with the body
// {"status": …}; newer chartmogul-go versions send the same body with PATCH).
func TestPatchInvoiceStatus(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-02-10T00:00:00Z"), true)
	d, acc, ds := f.D.API(), f.Acc.ID, f.DS.UUID
	f.AddInvoices(recomputetest.Invoice{Ext: "feb", Start: recomputetest.At("2024-02-01T00:00:00Z"), Amount: 3000, Paid: true})
	f.Run()
	f.Env.ReceiveJobs(t)
	patch := func(account, ext, status string) (int, string) {
		t.Helper()
		code, body := apitest.Do(t, d, "PatchInvoiceStatus", apigwtest.Call{
			PathParams: map[string]string{"data_source_uuid": ds, "invoice_external_id": ext},
			Body:       map[string]any{"status": status}, AccountID: account})
		raw, _ := json.Marshal(body)
		return code, string(raw)
	}
	for _, tc := range []struct {
		name, account, ext, status string
		code                       int
		want                       string
	}{
		{"write off", acc, "feb", "written_off", 200, `{"external_id":"feb","status":"written_off"}`},
		{"then void", acc, "feb", "voided", 200, `{"external_id":"feb","status":"voided"}`},
		{"a voided invoice stays voided", acc, "feb", "written_off", 422, bodyB("Status transition is not allowed", "status")},
		{"unknown invoice", acc, "mar", "voided", 404, bodyB("Invoice not found", "invoice")},
		{"another account's invoice", "acc_other", "feb", "voided", 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, got := patch(tc.account, tc.ext, tc.status); code != tc.code || (tc.want != "" && got != tc.want) {
				t.Errorf("%d %s, want %d %s", code, got, tc.code, tc.want)
			}
		})
	}
	f.Run()
	if c := f.Customer(); c.MRR != 0 {
		t.Errorf("after void: mrr %d", c.MRR)
	}
}
