package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Plans used across the tests.
var (
	monthly   = Plan{UUID: "pl_m", ExternalID: "monthly", Name: "Silver", IntervalCount: 1, IntervalUnit: "month"}
	gold      = Plan{UUID: "pl_g", ExternalID: "gold", Name: "Gold", IntervalCount: 1, IntervalUnit: "month"}
	free      = Plan{UUID: "pl_f", ExternalID: "free", Name: "Free", IntervalCount: 1, IntervalUnit: "month"}
	annual    = Plan{UUID: "pl_y", ExternalID: "annual", Name: "Gold annual", IntervalCount: 1, IntervalUnit: "year"}
	quarterly = Plan{UUID: "pl_q", ExternalID: "quarterly", Name: "Quarterly", IntervalCount: 3, IntervalUnit: "month"}
	weekly    = Plan{UUID: "pl_w", ExternalID: "weekly", Name: "Weekly", IntervalCount: 7, IntervalUnit: "day"}
	allPlans  = []Plan{monthly, gold, free, annual, quarterly, weekly}
)

// at parses "2006-01-02" or "2006-01-02T15:04" (UTC).
func at(s string) time.Time {
	for _, layout := range []string{time.DateOnly, "2006-01-02T15:04", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	panic("bad time " + s)
}

func defaults() Settings {
	return Settings{Currency: "USD", ChurnRecognition: ChurnAtCancellation, RefundHandling: RefundIgnore,
		ProximateMovementReclassification: "reclassification_off"}
}

// item is a non-prorated subscription line item on subscription "sub".
func item(plan Plan, start, end string, amount int64) LineItem {
	return LineItem{Type: ItemSubscription, SubscriptionExternalID: "sub", SubscriptionUUID: "sub_uuid",
		PlanUUID: plan.UUID, ServicePeriodStart: at(start), ServicePeriodEnd: at(end), AmountInCents: amount, Quantity: 1}
}

func onSub(it LineItem, ext string) LineItem {
	it.SubscriptionExternalID, it.SubscriptionUUID = ext, ext+"_uuid"
	return it
}

func invoice(id, date string, items ...LineItem) Invoice {
	return Invoice{UUID: "inv_" + id, ExternalID: id, DataSourceUUID: "ds_1", Date: at(date), Currency: "USD", LineItems: items}
}

// monthlyInvoices bills amount on plan for n consecutive months starting at first.
func monthlyInvoices(plan Plan, first string, n int, amount int64) []Invoice {
	var out []Invoice
	start := at(first)
	for i := range n {
		s, e := start.AddDate(0, i, 0), start.AddDate(0, i+1, 0)
		it := item(plan, s.Format(time.DateOnly), e.Format(time.DateOnly), amount)
		out = append(out, invoice(fmt.Sprintf("i%d", i), s.Format(time.DateOnly), it))
	}
	return out
}

func input(now string, invoices ...Invoice) Input {
	return Input{Now: at(now), Settings: defaults(), Plans: allPlans, Invoices: invoices}
}

// moves renders movements as "date type amount customer-mrr" for compact expectations.
func moves(r Result) []string {
	var out []string
	for _, m := range r.Movements {
		d := m.At.UTC().Format("2006-01-02T15:04")
		d = strings.TrimSuffix(d, "T00:00")
		s := fmt.Sprintf("%s %s %d %d", d, m.Type, m.Amount, m.CustomerMRR)
		if m.Scheduled {
			s += " scheduled"
		}
		out = append(out, s)
	}
	return out
}

// want is the expected customer-level outcome of a scenario.
type want struct {
	mrr, arr int64
	status   string
	since    string // "" for none
	moves    []string
}

func check(t *testing.T, r Result, w want) {
	t.Helper()
	if r.MRR != w.mrr {
		t.Errorf("mrr = %d, want %d", r.MRR, w.mrr)
	}
	if w.arr != 0 && r.ARR != w.arr {
		t.Errorf("arr = %d, want %d", r.ARR, w.arr)
	}
	if r.Status != w.status {
		t.Errorf("status = %q, want %q", r.Status, w.status)
	}
	since := ""
	if !r.CustomerSince.IsZero() {
		since = r.CustomerSince.UTC().Format(time.DateOnly)
	}
	if since != w.since {
		t.Errorf("customer-since = %q, want %q", since, w.since)
	}
	got := moves(r)
	if strings.Join(got, "\n") != strings.Join(w.moves, "\n") {
		t.Errorf("movements:\n got %q\nwant %q", got, w.moves)
	}
}
