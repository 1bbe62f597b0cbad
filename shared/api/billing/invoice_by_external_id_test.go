package billing_test

import (
	"net/http"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

// TestInvoiceByExternalIDAsRubyAsks sends what chartmogul-ruby 4.14.0
// (lib/chartmogul/concerns/external_id_operations.rb, Invoice.retrieve_by_external_id)
// sends: GET /v1/invoices?data_source_uuid=…&external_id=…. That is ChartMogul's invoice
// listing with its two filters, so the answer is the listing, {"invoices": [the one
// invoice], "cursor", "has_more": false}, as ChartMogul's reference documents for List
// Invoices; an external id of no invoice lists none, and a data source of another
// account is not found.
func TestInvoiceByExternalIDAsRubyAsks(t *testing.T) {
	b := apitest.NewBilling(t, "2024-02-10T00:00:00Z")
	b.ImportInvoices(b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 2000, "successful"),
		b.MonthInvoice("feb", "s1", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 2000, "successful"))
	status, got := b.Call("ListInvoices", nil,
		map[string][]string{"data_source_uuid": {b.F.DS.UUID}, "external_id": {"feb"}}, nil)
	invoices, _ := got["invoices"].([]any)
	if status != http.StatusOK || len(invoices) != 1 || got["has_more"] != false || invoices[0].(map[string]any)["external_id"] != "feb" ||
		invoices[0].(map[string]any)["customer_uuid"] != b.F.Cust.UUID {
		t.Fatalf("by external id: %d %v", status, got)
	}
	if _, ok := got["uuid"]; ok {
		t.Error("the answer is the listing, not one invoice")
	}
	if status, got := b.Call("ListInvoices", nil,
		map[string][]string{"data_source_uuid": {b.F.DS.UUID}, "external_id": {"none"}}, nil); status != http.StatusOK || len(got["invoices"].([]any)) != 0 {
		t.Errorf("unknown external id: %d %v", status, got)
	}
}
