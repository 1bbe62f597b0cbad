package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
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

// demoPayload builds a json_import body of the customers: one invoice per service period,
// each paid.
func demoPayload(now time.Time, externalID string, customers []demoCustomer) map[string]any {
	month := func(k int) time.Time {
		return time.Date(now.Year(), now.Month()+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
	}
	iso := func(t time.Time) string { return t.Format(time.RFC3339) }
	var records, invoices, lines, txs []map[string]any
	for _, c := range customers {
		records = append(records, map[string]any{"external_id": c.id, "name": c.name, "email": c.email, "country": c.country})
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
	return map[string]any{"external_id": externalID, "plans": demoPlans, "customers": records,
		"invoices": invoices, "line_items": lines, "transactions": txs}
}

// seedDemoData creates the "Demo billing" data source and sends the import, through the
// running stack's API; the pollers apply it within seconds. It returns the import's path.
func seedDemoData(ctx context.Context, baseURL, apiKey string, now time.Time) (string, error) {
	api := &demoClient{base: baseURL, key: apiKey, http: http.DefaultClient}
	var ds struct {
		UUID string `json:"uuid"`
	}
	if err := api.call(ctx, http.MethodPost, "/v1/data_sources", map[string]any{"name": "Demo billing"}, &ds); err != nil {
		return "", fmt.Errorf("demo data source: %w", err)
	}
	var imp struct {
		ID string `json:"id"`
	}
	body := demoPayload(now, "demo-"+now.Format("20060102"), demoCustomers)
	if err := api.call(ctx, http.MethodPost, "/v1/data_sources/"+ds.UUID+"/json_imports", body, &imp); err != nil {
		return "", fmt.Errorf("demo import: %w", err)
	}
	return ds.UUID + "/" + imp.ID, nil
}

// generatedCustomers draws the customers numbered first to first+n-1 of a generated
// account (make demo): the demo portfolio's plans and kinds of movement, in proportions
// a subscription business sees, over the last two years. Each customer comes from its
// own number, so an account of any size is the same whatever the chunks it is sent in.
func generatedCustomers(first, n int) []demoCustomer {
	out := make([]demoCustomer, 0, n)
	for i := first; i < first+n; i++ {
		rng := rand.New(rand.NewPCG(uint64(i), 0x5eed))
		name := fmt.Sprintf("%s %s %d", pickWeighted(rng, generatedNames), pickWeighted(rng, generatedKinds), i)
		slug := strings.ToLower(strings.ReplaceAll(name, " ", "-"))
		c := demoCustomer{id: fmt.Sprintf("gen-%06d", i), name: name, email: "billing@" + slug + ".example",
			country: pickWeighted(rng, generatedCountries)}
		plan, quantity := pickWeighted(rng, generatedPlans), 1
		if rng.IntN(10) == 0 {
			quantity = 2 + rng.IntN(4)
		}
		from := -rng.IntN(24)
		switch r := rng.IntN(100); {
		case r < 15 && from < -1: // churned: cancelled after a few periods
			c.subs = []demoSub{{plan, from, from + 1 + rng.IntN(-from), quantity}}
		case r < 30 && from < -2 && plan != "growth-annual": // another plan or quantity, same subscription
			at := from + 1 + rng.IntN(-from-1)
			next, nextQuantity := pickWeighted(rng, generatedPlans), quantity
			if next == plan || next == "growth-annual" {
				next, nextQuantity = plan, quantity+1
			}
			c.subs = []demoSub{{plan, from, at, quantity}, {next, at, 1, nextQuantity}}
		case r < 35 && from < -4 && plan != "growth-annual": // churned, then back on a new subscription
			gone := from + 1 + rng.IntN(-from/2)
			back := gone + 1 + rng.IntN(-gone)
			c.subs = []demoSub{{plan, from, gone, quantity}, {plan, back, 1, quantity}}
		default: // still subscribed
			c.subs = []demoSub{{plan, from, 1, quantity}}
		}
		out = append(out, c)
	}
	return out
}

type weighted struct {
	value  string
	weight int
}

var (
	generatedPlans     = []weighted{{"starter", 45}, {"growth", 30}, {"business", 10}, {"growth-annual", 15}}
	generatedCountries = []weighted{{"US", 40}, {"GB", 15}, {"DE", 12}, {"FR", 8}, {"CA", 8}, {"AU", 5}, {"NL", 4}, {"ES", 4}, {"IT", 4}}
	generatedNames     = []weighted{{"Northwind", 1}, {"Blue Harbor", 1}, {"Copperfield", 1}, {"Evergreen", 1}, {"Foxglove", 1},
		{"Granite", 1}, {"Helix", 1}, {"Juniper", 1}, {"Kestrel", 1}, {"Lumen", 1}, {"Meridian", 1}, {"Oakridge", 1}}
	generatedKinds = []weighted{{"Analytics", 1}, {"Labs", 1}, {"Logistics", 1}, {"Studio", 1}, {"Health", 1}, {"Foods", 1},
		{"Software", 1}, {"Partners", 1}}
)

func pickWeighted(rng *rand.Rand, ws []weighted) string {
	total := 0
	for _, w := range ws {
		total += w.weight
	}
	n := rng.IntN(total)
	for _, w := range ws {
		if n < w.weight {
			return w.value
		}
		n -= w.weight
	}
	return ws[len(ws)-1].value
}
