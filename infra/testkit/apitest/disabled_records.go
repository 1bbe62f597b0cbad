package apitest

import (
	"encoding/json"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/jobs"
)

// Billing is a customer's records imported through the Import API (so that line items
// and transactions get their locators), with calls to the record endpoints.
type Billing struct {
	t   *testing.T
	F   *recomputetest.Fixture
	D   *api.Deps
	Acc string
}

func NewBilling(t *testing.T, now string) *Billing {
	f := recomputetest.New(t, recomputetest.At(now), true)
	return &Billing{t: t, F: f, D: f.D.API(), Acc: f.Acc.ID}
}

// Call calls the operation named as the fixture's account.
func (b *Billing) Call(operation string, params map[string]string, query map[string][]string, body any) (int, map[string]any) {
	b.t.Helper()
	return Do(b.t, b.D, operation, apigwtest.Call{PathParams: params, Query: query, Body: body, AccountID: b.Acc})
}

// ImportInvoices imports invoices of the fixture's customer and returns them as answered.
func (b *Billing) ImportInvoices(invoices ...map[string]any) []map[string]any {
	b.t.Helper()
	status, body := b.Call("ImportCustomerInvoices",
		map[string]string{"customer_uuid": b.F.Cust.UUID}, nil, map[string]any{"invoices": invoices})
	if status != 201 {
		b.t.Fatalf("import: %d %v", status, body)
	}
	var out []map[string]any
	for _, inv := range body["invoices"].([]any) {
		out = append(out, inv.(map[string]any))
	}
	return out
}

// MonthInvoice is an invoice with one line item of the gold plan and a payment, every
// record with an external id.
func (b *Billing) MonthInvoice(ext, sub, start, end string, amount int, result string) map[string]any {
	return map[string]any{"external_id": ext, "date": start, "currency": "USD",
		"line_items": []map[string]any{{"type": "subscription", "external_id": "li-" + ext, "subscription_external_id": sub,
			"plan_uuid": b.F.Plan.UUID, "service_period_start": start, "service_period_end": end, "amount_in_cents": amount}},
		"transactions": []map[string]any{{"type": "payment", "result": result, "date": start, "external_id": "tr-" + ext}}}
}

// Metrics is what the recomputation shows of the customer.
type Metrics struct {
	MRR    int64
	Status string
	Since  any
	Rows   any
}

// Recompute runs the jobs the requests queued (one recomputation of the customer) and
// returns the customer's metrics.
func (b *Billing) Recompute() Metrics {
	b.t.Helper()
	sent := b.F.Env.ReceiveJobs(b.t)
	if len(sent) == 0 || sent[len(sent)-1].Type != jobs.RecomputeCustomer || sent[len(sent)-1].CustomerUUID != b.F.Cust.UUID {
		b.t.Fatalf("queued jobs %+v, want the customer's recomputation", sent)
	}
	b.F.Run()
	c := b.F.Customer()
	rows, _ := json.Marshal(b.F.SubscriptionRows())
	return Metrics{MRR: c.MRR, Status: c.Status, Since: c.CustomerSince, Rows: string(rows)}
}
