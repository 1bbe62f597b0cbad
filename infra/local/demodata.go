package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Demo data: make run imports a small portfolio into the demo account through the API
// itself (a data source and one json_import, with the demo key), so that the dashboard has
// a history to chart from the first minute. The records are dated relative to today: 12
// customers over the last 18 months, with every kind of movement.

type demoSub struct {
	plan     string
	from, to int // months relative to this month: invoices for months from..to-1
	quantity int
}

type demoCustomer struct {
	id, name, email, country string
	subs                     []demoSub
}

var demoPlans = []map[string]any{
	{"external_id": "starter", "name": "Starter", "interval_count": 1, "interval_unit": "month"},
	{"external_id": "growth", "name": "Growth", "interval_count": 1, "interval_unit": "month"},
	{"external_id": "business", "name": "Business", "interval_count": 1, "interval_unit": "month"},
	{"external_id": "growth-annual", "name": "Growth (annual)", "interval_count": 1, "interval_unit": "year"},
}

var demoPrices = map[string]int{"starter": 2900, "growth": 9900, "business": 29900, "growth-annual": 99000}

// until 1 = still active (invoiced for this month).
var demoCustomers = []demoCustomer{
	{"acme", "Acme Corp", "billing@acme.example", "US", []demoSub{{"growth", -17, 1, 1}}},
	{"globex", "Globex Ltd", "accounts@globex.example", "GB", []demoSub{{"starter", -15, -9, 1}, {"growth", -9, 1, 1}}},
	{"initech", "Initech", "finance@initech.example", "US", []demoSub{{"business", -14, -5, 1}, {"growth", -5, 1, 1}}},
	{"umbrella", "Umbrella GmbH", "it@umbrella.example", "DE", []demoSub{{"starter", -13, -7, 1}}},
	{"hooli", "Hooli", "ap@hooli.example", "US", []demoSub{{"growth-annual", -12, 1, 1}}},
	{"stark", "Stark Industries", "pay@stark.example", "CA", []demoSub{{"growth", -11, -8, 1}, {"growth", -4, 1, 1}}},
	{"wayne", "Wayne Enterprises", "billing@wayne.example", "US", []demoSub{{"business", -10, -3, 1}, {"business", -3, 1, 2}}},
	{"soylent", "Soylent SA", "compta@soylent.example", "FR", []demoSub{{"starter", -8, 1, 1}}},
	{"tyrell", "Tyrell Pty", "ops@tyrell.example", "AU", []demoSub{{"growth", -6, 1, 1}}},
	{"cyberdyne", "Cyberdyne Systems", "ar@cyberdyne.example", "US", []demoSub{{"starter", -4, -2, 1}}},
	{"massive", "Massive Dynamic", "finance@massive.example", "GB", []demoSub{{"business", -2, 1, 1}}},
	{"vandelay", "Vandelay Industries", "art@vandelay.example", "US", []demoSub{{"starter", -1, 1, 1}}},
}

// demoPayload builds the json_import body: one invoice per service period, each paid.
func demoPayload(now time.Time) map[string]any {
	month := func(k int) time.Time {
		return time.Date(now.Year(), now.Month()+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
	}
	iso := func(t time.Time) string { return t.Format(time.RFC3339) }
	var customers, invoices, lines, txs []map[string]any
	for _, c := range demoCustomers {
		customers = append(customers, map[string]any{"external_id": c.id, "name": c.name, "email": c.email, "country": c.country})
		for si, s := range c.subs {
			sub := fmt.Sprintf("%s-sub-%d", c.id, si)
			if si > 0 && c.subs[si-1].to == s.from {
				sub = fmt.Sprintf("%s-sub-%d", c.id, si-1) // a plan or quantity change on the same subscription
			}
			step := 1
			if s.plan == "growth-annual" {
				step = 12
			}
			// A run that ends before this month, not continued by the next one, is cancelled
			// at the end of its last period (churn needs a cancellation).
			cancelled := s.to <= 0 && (si+1 == len(c.subs) || c.subs[si+1].from != s.to)
			for m := s.from; m < s.to; m += step {
				start, end := month(m), month(m+step)
				if start.After(now) {
					break
				}
				inv := fmt.Sprintf("%s-%s", c.id, start.Format("2006-01"))
				invoices = append(invoices, map[string]any{"external_id": inv, "customer_external_id": c.id, "date": iso(start), "currency": "USD"})
				line := map[string]any{"invoice_external_id": inv, "type": "subscription", "subscription_external_id": sub,
					"plan_external_id": s.plan, "service_period_start": iso(start), "service_period_end": iso(end),
					"amount_in_cents": demoPrices[s.plan] * s.quantity, "quantity": s.quantity}
				if cancelled && m+step >= s.to {
					line["cancelled_at"] = iso(end)
				}
				lines = append(lines, line)
				txs = append(txs, map[string]any{"invoice_external_id": inv, "type": "payment", "result": "successful", "date": iso(start.Add(2 * time.Hour))})
			}
		}
	}
	return map[string]any{"external_id": "demo-" + now.Format("20060102"), "plans": demoPlans, "customers": customers,
		"invoices": invoices, "line_items": lines, "transactions": txs}
}

// seedDemoData creates the "Demo billing" data source and sends the import, through the
// running stack's API; the pollers apply it within seconds. It returns the import's path.
func seedDemoData(ctx context.Context, baseURL, apiKey string, now time.Time) (string, error) {
	call := func(method, path string, body any, out any) error {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, method, baseURL+path, bytes.NewReader(b))
		if err != nil {
			return err
		}
		req.SetBasicAuth(apiKey, "")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		return json.Unmarshal(raw, out)
	}
	var ds struct {
		UUID string `json:"uuid"`
	}
	if err := call(http.MethodPost, "/v1/data_sources", map[string]any{"name": "Demo billing"}, &ds); err != nil {
		return "", fmt.Errorf("demo data source: %w", err)
	}
	var imp struct {
		ID string `json:"id"`
	}
	if err := call(http.MethodPost, "/v1/data_sources/"+ds.UUID+"/json_imports", demoPayload(now), &imp); err != nil {
		return "", fmt.Errorf("demo import: %w", err)
	}
	return ds.UUID + "/" + imp.ID, nil
}
