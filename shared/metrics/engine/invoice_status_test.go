package engine

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestInvoiceStatuses: voided and written-off invoices contribute no MRR and neither create
// nor extend a subscription (§1.3); everything else about them (payments,
// cancelled_at) is ignored too. Each status case has a plain twin, so the test fails if the
// status stopped mattering.
func TestInvoiceStatuses(t *testing.T) {
	status := func(inv Invoice, st string) Invoice { inv.Status = st; return inv }
	cancelledAt := func(it LineItem, when string) LineItem { it.CancelledAt = at(when); return it }
	first := invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))
	renewal := invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1000))
	// 1600 for 16 of January's 31 days: 3100 a month more.
	upgrade := invoice("u", "2024-01-16", prorated(item(gold, "2024-01-16", "2024-02-01", 1600), ProrationDifferential))
	yearly := invoice("y", "2024-01-01", item(annual, "2024-01-01", "2025-01-01", 120000))
	addOn := failed(withDue(invoice("f", "2024-03-01", onSub(item(annual, "2024-03-01", "2025-03-01", 12000), "b")), "2024-03-08"), "2024-03-01")
	tests := []struct {
		name string
		in   Input
		want want
		subs []string // "start end mrr status" of the Metrics-API view
	}{
		{"issued: a subscriber", input("2024-01-10", first),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}},
			[]string{"2024-01-01 2024-02-01 1000 active"}},
		{"the only invoice voided: a lead without subscription", input("2024-01-10", status(first, InvoiceVoided)),
			want{mrr: 0, status: StatusLead}, nil},
		{"the only invoice written off: a lead without subscription", input("2024-01-10", status(first, InvoiceWrittenOff)),
			want{mrr: 0, status: StatusLead}, nil},
		{"renewal issued: extended", input("2024-02-10", first, renewal),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}},
			[]string{"2024-01-01 2024-03-01 1000 active"}},
		{"renewal voided: not extended, MRR kept, Past Due", input("2024-02-10", first, status(renewal, InvoiceVoided)),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}},
			[]string{"2024-01-01 2024-02-01 1000 active"}},
		{"first invoice voided: the subscription starts with the next", input("2024-02-10", status(first, InvoiceVoided), renewal),
			want{mrr: 1000, status: StatusActive, since: "2024-02-01", moves: []string{"2024-02-01 new_biz 1000 1000"}},
			[]string{"2024-02-01 2024-03-01 1000 active"}},
		{"prorated upgrade issued: expansion", input("2024-01-20", first, upgrade),
			want{mrr: 4100, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-01-16 expansion 3100 4100"}},
			[]string{"2024-01-01 2024-02-01 4100 active"}},
		{"prorated upgrade written off: no expansion", input("2024-01-20", first, status(upgrade, InvoiceWrittenOff)),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}},
			[]string{"2024-01-01 2024-02-01 1000 active"}},
		{"middle invoice written off: a gap, no churn", input("2024-03-10",
			first, status(renewal, InvoiceWrittenOff), invoice("3", "2024-03-01", item(monthly, "2024-03-01", "2024-04-01", 1000))),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}},
			[]string{"2024-01-01 2024-04-01 1000 active"}},
		{"cancelled_at on an issued invoice: churn", input("2024-02-20",
			first, invoice("2", "2024-02-01", cancelledAt(item(monthly, "2024-02-01", "2024-03-01", 1000), "2024-02-15"))),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-02-15 churn -1000 0"}},
			[]string{"2024-01-01 2024-02-15 0 inactive"}},
		{"cancelled_at on a voided invoice: ignored", input("2024-02-20",
			first, status(invoice("2", "2024-02-01", cancelledAt(item(monthly, "2024-02-01", "2024-03-01", 1000), "2024-02-15")), InvoiceVoided)),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}},
			[]string{"2024-01-01 2024-02-01 1000 active"}},
		{"failed payment on an issued invoice past due: Past Due", input("2024-03-10", yearly, addOn),
			want{mrr: 11000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 10000 10000", "2024-03-01 expansion 1000 11000"}},
			[]string{"2024-01-01 2025-01-01 10000 active", "2024-03-01 2025-03-01 1000 active"}},
		{"failed payment on a voided invoice: not Past Due", input("2024-03-10", yearly, status(addOn, InvoiceVoided)),
			want{mrr: 10000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 10000 10000"}},
			[]string{"2024-01-01 2025-01-01 10000 active"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compute(tt.in)
			check(t, r, tt.want)
			var subs []string
			for _, s := range r.Subscriptions {
				subs = append(subs, fmt.Sprintf("%s %s %d %s", s.StartDate.Format(time.DateOnly), s.EndDate.Format(time.DateOnly), s.MRR, s.Status))
			}
			if !slices.Equal(subs, tt.subs) {
				t.Errorf("subscriptions %q, want %q", subs, tt.subs)
			}
			if len(r.InvalidInvoices) != 0 {
				t.Errorf("invalid invoices %+v: a status is not a validation failure", r.InvalidInvoices)
			}
		})
	}
}
