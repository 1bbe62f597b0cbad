package model

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/shared/apperr"
)

// validImport is a payload with one record of every kind; cases change one field.
func validImport() map[string]any {
	return map[string]any{
		"external_id": "batch-1",
		"customers":   []any{map[string]any{"external_id": "c1", "name": "Acme", "email": "a@acme.test", "country": "US"}},
		"plans":       []any{map[string]any{"external_id": "gold", "name": "Gold", "interval_count": 1, "interval_unit": "month"}},
		"invoices": []any{map[string]any{"external_id": "inv1", "customer_external_id": "c1", "date": "2024-01-01",
			"currency": "USD", "collection_method": "automatic"}},
		"line_items": []any{map[string]any{"invoice_external_id": "inv1", "type": "subscription", "amount_in_cents": 1000,
			"plan_external_id": "gold", "subscription_external_id": "s1", "service_period_start": "2024-01-01",
			"service_period_end": "2024-02-01", "proration_type": "full", "quantity": 2}},
		"transactions": []any{map[string]any{"invoice_external_id": "inv1", "type": "payment", "result": "successful",
			"date": "2024-01-02", "amount_in_cents": 1000}},
		"subscription_events": []any{map[string]any{"customer_external_id": "c1", "event_type": "subscription_start",
			"event_date": "2024-01-01", "effective_date": "2024-01-01", "subscription_external_id": "s1",
			"plan_external_id": "gold", "currency": "USD", "amount_in_cents": 1000}},
	}
}

func rec0(p map[string]any, array string) map[string]any {
	return p[array].([]any)[0].(map[string]any)
}

func parse(t *testing.T, p map[string]any) (ImportPayload, error) {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return ParseImport(b)
}

func TestParseImportValid(t *testing.T) {
	p, err := parse(t, validImport())
	if err != nil {
		t.Fatal(err)
	}
	li := p.LineItems[0]
	if li.Quantity != 2 || li.Prorated || li.DiscountCode != "" || li.ProrationType != "full" {
		t.Fatalf("line item %+v", li)
	}
	if want := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC); !p.Invoices[0].Date.Equal(want) || p.Invoices[0].Date.Location() != time.UTC {
		t.Fatalf("date %v", p.Invoices[0].Date)
	}
	if p.Events[0].Quantity == nil || *p.Events[0].Quantity != 1 {
		t.Fatalf("event quantity default: %+v", p.Events[0].Quantity)
	}
}

func TestParseImportDefaults(t *testing.T) {
	p := validImport()
	delete(rec0(p, "line_items"), "quantity")
	delete(rec0(p, "line_items"), "proration_type")
	rec0(p, "invoices")["date"] = "2024-01-01T10:00:00+02:00"
	got, err := parse(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if got.LineItems[0].Quantity != 1 || got.LineItems[0].Prorated {
		t.Fatalf("defaults: %+v", got.LineItems[0])
	}
	if want := time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC); !got.Invoices[0].Date.Equal(want) {
		t.Fatalf("offset not converted to UTC: %v", got.Invoices[0].Date)
	}
}

func TestParseImportRules(t *testing.T) {
	set := func(array, field string, v any) func(map[string]any) {
		return func(p map[string]any) { rec0(p, array)[field] = v }
	}
	del := func(array, field string) func(map[string]any) {
		return func(p map[string]any) { delete(rec0(p, array), field) }
	}
	dup := func(array string) func(map[string]any) {
		return func(p map[string]any) { p[array] = append(p[array].([]any), rec0(p, array)) }
	}
	cases := []struct {
		name   string
		change func(map[string]any)
		param  string
	}{
		{"external_id required", func(p map[string]any) { delete(p, "external_id") }, "external_id"},
		{"external_id blank", func(p map[string]any) { p["external_id"] = "  " }, "external_id"},
		{"array must be an array", func(p map[string]any) { p["invoices"] = map[string]any{} }, "invoices"},
		{"record must be an object", func(p map[string]any) { p["plans"] = []any{"x"} }, "plans[0]"},
		{"customer external_id required", del("customers", "external_id"), "customers[0].external_id"},
		{"customer external_id unique", dup("customers"), "customers[1].external_id"},
		{"customer email", set("customers", "email", "nope"), "customers[0].email"},
		{"customer country", set("customers", "country", "XX"), "customers[0].country"},
		{"customer name length", set("customers", "name", strings.Repeat("n", 256)), "customers[0].name"},
		{"customer lead date", set("customers", "lead_created_at", "yesterday"), "customers[0].lead_created_at"},
		{"customer trial before lead", func(p map[string]any) {
			rec0(p, "customers")["lead_created_at"] = "2024-02-01"
			rec0(p, "customers")["free_trial_started_at"] = "2024-01-01"
		}, "customers[0].free_trial_started_at"},
		{"plan name required", del("plans", "name"), "plans[0].name"},
		{"plan interval_count required", del("plans", "interval_count"), "plans[0].interval_count"},
		{"plan interval_count positive", set("plans", "interval_count", 0), "plans[0].interval_count"},
		{"plan interval_count integer", set("plans", "interval_count", 1.5), "plans[0].interval_count"},
		{"plan interval_count int32", set("plans", "interval_count", 2147483648), "plans[0].interval_count"},
		{"plan interval_unit", set("plans", "interval_unit", "week"), "plans[0].interval_unit"},
		{"plan external_id unique", dup("plans"), "plans[1].external_id"},
		{"invoice external_id", del("invoices", "external_id"), "invoices[0].external_id"},
		{"invoice customer", del("invoices", "customer_external_id"), "invoices[0].customer_external_id"},
		{"invoice date required", del("invoices", "date"), "invoices[0].date"},
		{"invoice date format", set("invoices", "date", "01/02/2024"), "invoices[0].date"},
		{"invoice due_date format", set("invoices", "due_date", "soon"), "invoices[0].due_date"},
		{"invoice currency required", del("invoices", "currency"), "invoices[0].currency"},
		{"invoice currency code", set("invoices", "currency", "XYZ"), "invoices[0].currency"},
		{"invoice collection_method", set("invoices", "collection_method", "cash"), "invoices[0].collection_method"},
		{"invoice external_id unique", dup("invoices"), "invoices[1].external_id"},
		{"line item invoice", del("line_items", "invoice_external_id"), "line_items[0].invoice_external_id"},
		{"line item type required", del("line_items", "type"), "line_items[0].type"},
		{"line item type", set("line_items", "type", "refund"), "line_items[0].type"},
		{"line item amount required", del("line_items", "amount_in_cents"), "line_items[0].amount_in_cents"},
		{"line item amount integer", set("line_items", "amount_in_cents", 10.5), "line_items[0].amount_in_cents"},
		{"line item amount int32", set("line_items", "amount_in_cents", 2147483648), "line_items[0].amount_in_cents"},
		{"line item amount below int32", set("line_items", "amount_in_cents", -2147483649), "line_items[0].amount_in_cents"},
		{"line item amount type", set("line_items", "amount_in_cents", true), "line_items[0].amount_in_cents"},
		{"subscription id required", del("line_items", "subscription_external_id"), "line_items[0].subscription_external_id"},
		{"service period start required", del("line_items", "service_period_start"), "line_items[0].service_period_start"},
		{"service period order", set("line_items", "service_period_end", "2023-12-01"), "line_items[0].service_period_end"},
		{"plan required on subscription items", del("line_items", "plan_external_id"), "line_items[0].plan_external_id"},
		{"quantity non-zero", set("line_items", "quantity", 0), "line_items[0].quantity"},
		{"quantity int32", set("line_items", "quantity", 3000000000), "line_items[0].quantity"},
		{"prorated boolean", set("line_items", "prorated", "maybe"), "line_items[0].prorated"},
		{"proration_type", set("line_items", "proration_type", "partial"), "line_items[0].proration_type"},
		{"discount non-negative", set("line_items", "discount_amount_in_cents", -1), "line_items[0].discount_amount_in_cents"},
		{"tax int32", set("line_items", "tax_amount_in_cents", 2147483648), "line_items[0].tax_amount_in_cents"},
		{"fees non-negative", set("line_items", "transaction_fees_in_cents", -5), "line_items[0].transaction_fees_in_cents"},
		{"fees currency", set("line_items", "transaction_fees_currency", "EURO"), "line_items[0].transaction_fees_currency"},
		{"event_order int32", set("line_items", "event_order", 1e12), "line_items[0].event_order"},
		{"line item external_id unique per invoice", func(p map[string]any) {
			rec0(p, "line_items")["external_id"] = "li1"
			dup("line_items")(p)
		}, "line_items[1].external_id"},
		{"transaction invoice", del("transactions", "invoice_external_id"), "transactions[0].invoice_external_id"},
		{"transaction type", set("transactions", "type", "chargeback"), "transactions[0].type"},
		{"transaction result", set("transactions", "result", "pending"), "transactions[0].result"},
		{"transaction result required", del("transactions", "result"), "transactions[0].result"},
		{"transaction date", del("transactions", "date"), "transactions[0].date"},
		{"transaction amount non-negative", set("transactions", "amount_in_cents", -1), "transactions[0].amount_in_cents"},
		{"payments above the invoice", set("transactions", "amount_in_cents", 1001), "transactions[0].amount_in_cents"},
		{"partial payments above the invoice", func(p map[string]any) {
			rec0(p, "transactions")["amount_in_cents"] = 600
			dup("transactions")(p)
		}, "transactions[1].amount_in_cents"},
		{"event customer", del("subscription_events", "customer_external_id"), "subscription_events[0].customer_external_id"},
		{"event type", set("subscription_events", "event_type", "subscription_paused"), "subscription_events[0].event_type"},
		{"event date", del("subscription_events", "event_date"), "subscription_events[0].event_date"},
		{"effective date", del("subscription_events", "effective_date"), "subscription_events[0].effective_date"},
		{"event subscription", del("subscription_events", "subscription_external_id"), "subscription_events[0].subscription_external_id"},
		{"start needs plan", del("subscription_events", "plan_external_id"), "subscription_events[0].plan_external_id"},
		{"start needs currency", del("subscription_events", "currency"), "subscription_events[0].currency"},
		{"start needs amount", del("subscription_events", "amount_in_cents"), "subscription_events[0].amount_in_cents"},
		{"retraction needs the event", set("subscription_events", "event_type", "subscription_event_retracted"), "subscription_events[0].retracted_event_id"},
		{"event quantity non-zero", set("subscription_events", "quantity", 0), "subscription_events[0].quantity"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := validImport()
			tc.change(p)
			_, err := parse(t, p)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("want a field error, got %v", err)
			}
			if fe.Param() != tc.param {
				t.Fatalf("param %q, want %q (%s)", fe.Param(), tc.param, fe.Message)
			}
		})
	}
}

func TestParseImportAccepts(t *testing.T) {
	cases := []struct {
		name   string
		change func(map[string]any)
	}{
		{"numeric strings", func(p map[string]any) { rec0(p, "line_items")["amount_in_cents"] = "1000" }},
		{"one-time line item without subscription", func(p map[string]any) {
			li := rec0(p, "line_items")
			li["type"] = "one_time"
			delete(li, "subscription_external_id")
			delete(li, "service_period_start")
			delete(li, "plan_external_id")
		}},
		{"cancellation event without plan", func(p map[string]any) {
			e := rec0(p, "subscription_events")
			e["event_type"] = "subscription_cancelled"
			delete(e, "plan_external_id")
			delete(e, "currency")
			delete(e, "amount_in_cents")
		}},
		{"payment without amount", func(p map[string]any) { delete(rec0(p, "transactions"), "amount_in_cents") }},
		{"transactions of an earlier invoice", func(p map[string]any) { rec0(p, "transactions")["invoice_external_id"] = "old" }},
		{"only plans", func(p map[string]any) {
			for _, k := range []string{"customers", "invoices", "line_items", "transactions", "subscription_events"} {
				delete(p, k)
			}
		}},
		{"null arrays", func(p map[string]any) { p["customers"] = nil }},
		{"int32 bounds", func(p map[string]any) {
			rec0(p, "line_items")["amount_in_cents"] = -2147483648
			rec0(p, "line_items")["quantity"] = 2147483647
			delete(p, "transactions")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := validImport()
			tc.change(p)
			if _, err := parse(t, p); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestParseImportNotJSON(t *testing.T) {
	for _, body := range []string{"[]", "null", "{", `{"external_id":"x"} {}`, "{\"external_id\":\"\xff\"}"} {
		_, err := ParseImport([]byte(body))
		if e, ok := apperr.As(err); !ok || e.Status != http.StatusBadRequest {
			t.Errorf("%q: %v, want a 400", body, err)
		}
	}
}
