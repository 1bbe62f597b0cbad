package engine

import (
	"slices"
	"sort"
	"time"
)

type span struct{ from, to time.Time }

// forever closes spans that have no end yet.
var forever = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

func (sp span) contains(t time.Time) bool { return !t.Before(sp.from) && t.Before(sp.to) }

// pastDueSpans are the times the subscription would be past due if live (§3.3, choice 9 of
// docs/metrics-engine.md): from the end of its latest service period until a newer one
// starts, and from the due date (else the invoice date) of an invoice with a failed payment
// and no successful one until a successful payment or a newer line item.
func (s *subscription) pastDueSpans(in Input) []span {
	var out []span
	cov := slices.Clone(s.coverage)
	slices.SortFunc(cov, func(a, b span) int { return a.from.Compare(b.from) })
	var end time.Time
	for i, c := range cov {
		if i > 0 && c.from.After(end) {
			out = append(out, span{end, c.from})
		}
		if i == 0 || c.to.After(end) {
			end = c.to
		}
	}
	if len(cov) > 0 {
		out = append(out, span{end, forever})
	}
	latest := map[int]time.Time{} // latest service period start per invoice
	var invoices []int
	for _, it := range s.items {
		t, seen := latest[it.invoice]
		if !seen {
			invoices = append(invoices, it.invoice)
		}
		if !seen || it.ServicePeriodStart.After(t) {
			latest[it.invoice] = it.ServicePeriodStart
		}
	}
	for _, i := range invoices {
		if sp, ok := s.failedPaymentSpan(in.Invoices[i], latest[i]); ok {
			out = append(out, sp)
		}
	}
	return mergeSpans(out)
}

func (s *subscription) failedPaymentSpan(inv Invoice, latest time.Time) (span, bool) {
	failed := false
	var paid time.Time
	for _, t := range inv.Transactions {
		if t.Type != TransactionPayment {
			continue
		}
		switch t.Result {
		case ResultFailed:
			failed = true
		case ResultSuccessful:
			if paid.IsZero() || t.Date.Before(paid) {
				paid = t.Date
			}
		}
	}
	if !failed {
		return span{}, false
	}
	from := inv.DueDate
	if from.IsZero() {
		from = inv.Date
	}
	to := forever
	// Items are sorted by start: the first one after latest belongs to a newer invoice, which
	// is then the latest one.
	next := sort.Search(len(s.items), func(i int) bool { return s.items[i].ServicePeriodStart.After(latest) })
	if next < len(s.items) {
		to = s.items[next].ServicePeriodStart
	}
	if !paid.IsZero() && paid.Before(to) {
		to = paid
	}
	return span{from, to}, to.After(from)
}

func mergeSpans(in []span) []span {
	slices.SortFunc(in, func(a, b span) int { return a.from.Compare(b.from) })
	var out []span
	for _, sp := range in {
		if n := len(out); n > 0 && !sp.from.After(out[n-1].to) {
			if sp.to.After(out[n-1].to) {
				out[n-1].to = sp.to
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// autoChurnSteps churns a subscription that stays past due for the configured number of days,
// dated at the moment the interval runs out (ambiguity A5). Later instants are returned as
// wake-up times for the caller.
func (s *subscription) autoChurnSteps(in Input, spans []span) (steps []*step, wake []time.Time) {
	if !in.Settings.AutoChurnSubscription {
		return nil, nil
	}
	days := in.Settings.AutoChurnAfterDays
	if days <= 0 {
		days = DefaultAutoChurnDays
	}
	for _, sp := range spans {
		at := sp.from.AddDate(0, 0, days)
		if !at.Before(sp.to) {
			continue
		}
		if at.After(in.Now) {
			wake = append(wake, at)
			continue
		}
		steps = append(steps, &step{at: at, kind: stepCancel, sub: s, autoChurn: true, seq: -1 << 30})
	}
	return steps, wake
}
