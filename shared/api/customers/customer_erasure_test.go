package customers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/workers"
)

// erasureImport is two customers of one monthly plan, each invoiced for the last four
// months at its amount, with an e-mail address of its own.
func erasureImport(amounts map[string]int, month func(int) string) map[string]any {
	var cs, invs, lines, txs []any
	for ext, amount := range amounts {
		cs = append(cs, map[string]any{"external_id": ext, "name": "Customer " + ext, "email": ext + "@example.com"})
		for m := -3; m <= 0; m++ {
			inv := fmt.Sprintf("%s-inv%d", ext, -m)
			invs = append(invs, map[string]any{"external_id": inv, "customer_external_id": ext, "date": month(m), "currency": "USD"})
			lines = append(lines, map[string]any{"invoice_external_id": inv, "type": "subscription", "amount_in_cents": amount,
				"plan_external_id": "monthly", "subscription_external_id": ext + "-sub", "service_period_start": month(m),
				"service_period_end": month(m + 1), "external_id": inv + "-li"})
			txs = append(txs, map[string]any{"invoice_external_id": inv, "type": "payment", "result": "successful",
				"date": month(m), "external_id": inv + "-tx"})
		}
	}
	return map[string]any{"external_id": "erasure", "customers": cs,
		"plans":    []any{map[string]any{"external_id": "monthly", "name": "Monthly", "interval_count": 1, "interval_unit": "month"}},
		"invoices": invs, "line_items": lines, "transactions": txs}
}

// TestDeleteCustomerErasesEverything: DELETE /v1/customers/{uuid} of one of two customers
// (7,000 and 3,000 of monthly MRR), then the workers until idle: the account's MRR is
// the other's in every month, the customer count 1, no activity of the deleted one is
// listed, and no item of the table names its uuid, external id or e-mail.
func TestDeleteCustomerErasesEverything(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	now := e.Env.Deps.Now().UTC()
	first := now.AddDate(0, -3, 0)
	month := func(m int) string { return now.AddDate(0, m, 0).Format("2006-01-02") }
	status, body := e.Do(e.Acc, "CreateJsonImport",
		map[string]string{"data_source_uuid": e.DS.UUID}, nil, erasureImport(map[string]int{"erased7k": 700000, "kept3k": 300000}, month))
	if status != http.StatusOK {
		t.Fatalf("import: %d %v", status, body)
	}
	importID := body["id"].(string)
	e.Env.DrainImports(t)
	runJobs := func() { e.Env.DrainJobs(t, workers.Jobs(e.Env.Workers)) }
	runJobs()
	gone := apitest.CustomerByExternalID(t, e.Env, e.Acc, e.DS.UUID, "erased7k")
	e.CreateContact(map[string]any{"customer_uuid": gone, "data_source_uuid": e.DS.UUID, "email": "erased7k.contact@example.com",
		"first_name": "Erased7k"})
	e.CreateNote(e.Acc, map[string]any{"customer_uuid": gone, "type": "note", "text": "a note about erased7k"})

	metric := func(op, field string) []any {
		t.Helper()
		q := url.Values{"start-date": {first.Format("2006-01-02")}, "end-date": {now.Format("2006-01-02")}, "interval": {"month"}}
		status, body := e.Do(e.Acc, op, nil, q, nil)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %v", op, status, body)
		}
		return apitest.Field(body, field)
	}
	every := func(values []any, want float64) bool {
		for _, v := range values {
			if v != want {
				return false
			}
		}
		return len(values) > 0
	}
	if mrr := metric("MetricsMrr", "mrr"); !every(mrr, 1000000) {
		t.Fatalf("MRR before: %v", mrr)
	}

	if status, body := e.Do(e.Acc, "DeleteCustomer", apitest.Cus(gone), nil, nil); status != http.StatusNoContent {
		t.Fatalf("delete: %d %v", status, body)
	}
	runJobs()

	if mrr := metric("MetricsMrr", "mrr"); !every(mrr, 300000) {
		t.Errorf("MRR after: %v", mrr)
	}
	if count := metric("MetricsCustomerCount", "customers"); !every(count, 1) {
		t.Errorf("customer count after: %v", count)
	}
	status, acts := e.Do(e.Acc, "ListActivities", nil, url.Values{"per_page": {"200"}}, nil)
	if status != http.StatusOK {
		t.Fatalf("activities: %d %v", status, acts)
	}
	for _, a := range apitest.Entries(t, acts) {
		if a["customer-uuid"] == gone || a["customer-external-id"] == "erased7k" {
			t.Errorf("activity of the deleted customer: %v", a)
		}
	}
	// The import still counts both customers done, under a stand-in for the deleted one.
	status, imp := e.Do(e.Acc, "GetJsonImport",
		map[string]string{"data_source_uuid": e.DS.UUID, "import_id": importID}, nil, nil)
	if details, _ := imp["status_details"].(map[string]any); status != http.StatusOK || imp["status"] != "completed" || len(details) != 3 {
		t.Errorf("import after the deletion: %d %v", status, imp)
	}
	for _, item := range scanTable(t, e) {
		for name, v := range item {
			s := fmt.Sprint(v)
			if strings.Contains(s, gone) || strings.Contains(s, "erased7k") {
				t.Errorf("item %v %v still names the deleted customer in %s: %s", item["PK"], item["SK"], name, s)
			}
		}
	}
}

// scanTable is every item of the Env's table, as strings per attribute.
func scanTable(t *testing.T, e *apitest.ResourceEnv) []map[string]string {
	t.Helper()
	var out []map[string]string
	p := dynamodb.NewScanPaginator(e.Env.Deps.Clients.DynamoDB, &dynamodb.ScanInput{TableName: aws.String(e.Env.TableName)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Items {
			out = append(out, flatten(item))
		}
	}
	return out
}

// flatten renders each attribute of an item as text (nested values included).
func flatten(item map[string]types.AttributeValue) map[string]string {
	out := make(map[string]string, len(item))
	for k, v := range item {
		out[k] = render(v)
	}
	return out
}

func render(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		if r, err := gzip.NewReader(bytes.NewReader(v.Value)); err == nil {
			if b, err := io.ReadAll(r); err == nil {
				return string(b) // the series records are compressed
			}
		}
		return string(v.Value)
	case *types.AttributeValueMemberSS:
		return strings.Join(v.Value, ",")
	case *types.AttributeValueMemberL:
		var parts []string
		for _, x := range v.Value {
			parts = append(parts, render(x))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		var parts []string
		for k, x := range v.Value {
			parts = append(parts, k+"="+render(x))
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		return fmt.Sprint(v)
	}
}
