package engine

import (
	"slices"
	"time"
)

// settingsFor is Settings with the overrides of the data source's own rules (§1.8).
func (in Input) settingsFor(dataSource string) Settings {
	s := in.Settings
	if r, ok := in.Sources[dataSource]; ok {
		if r.ChurnRecognition != "" {
			s.ChurnRecognition = r.ChurnRecognition
		}
		if r.RefundHandling != "" {
			s.RefundHandling = r.RefundHandling
		}
	}
	return s
}

// invoiceRules are the rules of the invoice's collection method.
func (r SourceRules) invoiceRules(inv Invoice) InvoiceRules {
	if inv.CollectionMethod == CollectionManual {
		return r.Manual
	}
	return r.Automatic
}

// excludedByStatus: a voided or written-off invoice counts for nothing, unless its
// source's rules let it count as an issued one (§1.3, §1.8).
func (in Input) excludedByStatus(inv Invoice) bool {
	if inv.Status != InvoiceVoided && inv.Status != InvoiceWrittenOff {
		return false
	}
	r, ok := in.Sources[inv.DataSourceUUID]
	if !ok {
		return true
	}
	if inv.Status == InvoiceVoided {
		return r.invoiceRules(inv).PreventVoided
	}
	return r.invoiceRules(inv).PreventWrittenOff
}

// cancellationDate is when a cancellation event cancels: its effective date, or, under
// churn_at_click for a source with its own rules, the date the cancellation was decided
// (event_date) when earlier (§4.2). Such sources report when the customer asked.
func (in Input) cancellationDate(e SubscriptionEvent) time.Time {
	if _, ok := in.Sources[e.DataSourceUUID]; ok && in.settingsFor(e.DataSourceUUID).ChurnRecognition == ChurnAtClick &&
		!e.EventDate.IsZero() && e.EventDate.Before(e.EffectiveDate) {
		return e.EventDate
	}
	return e.EffectiveDate
}

// paymentRank orders the payment states; an unknown or empty state is "open".
var paymentRank = map[string]int{PaymentOpen: 0, PaymentPartiallyPaid: 1, PaymentPaid: 2}

// paymentState is how far the invoice is paid: paid when its successful payments cover
// its total (a payment without an amount pays all of it; a total of $0 or less is paid),
// partially paid when they are above zero, else open.
func paymentState(inv Invoice) string {
	var total, paid int64
	for _, it := range inv.LineItems {
		total += it.AmountInCents
	}
	if total <= 0 {
		return PaymentPaid
	}
	for _, t := range inv.Transactions {
		if t.Type != TransactionPayment || t.Result != ResultSuccessful {
			continue
		}
		if t.AmountInCents == nil {
			return PaymentPaid
		}
		paid += *t.AmountInCents
	}
	switch {
	case paid >= total:
		return PaymentPaid
	case paid > 0:
		return PaymentPartiallyPaid
	}
	return PaymentOpen
}

// applyInvoiceHandling leaves out the items of invoices that do not count yet under their
// source's invoice rules (§1.8). Per subscription, its invoices are taken in the order of
// their first item (service period start, event order, input order): an invoice starts
// the subscription when no earlier counted item made it live, or when a cancellation of
// its history falls after the last counted period start and at or before the invoice's
// first start (with churn_at_period_end, only when that start is after the counted
// periods' end, as a restart within them drops the cancellation); it then counts once its
// payment state reaches CreateWhen, a later invoice once it reaches UpdateWhen. Items of
// other sources are kept as they are. items are screenInvoices' (seq = index).
func applyInvoiceHandling(in Input, items []pricedItem) []pricedItem {
	if len(in.Sources) == 0 {
		return items
	}
	bySub := map[string][]pricedItem{}
	var keys []string
	for _, it := range items {
		ds := in.Invoices[it.invoice].DataSourceUUID
		if _, ok := in.Sources[ds]; !ok {
			continue
		}
		k := subscriptionKey(ds, it.SubscriptionExternalID)
		if _, seen := bySub[k]; !seen {
			keys = append(keys, k)
		}
		bySub[k] = append(bySub[k], it)
	}
	if len(keys) == 0 {
		return items
	}
	cancels := cancellationDates(in, items)
	states := map[int]string{}
	state := func(n int) string {
		if s, ok := states[n]; ok {
			return s
		}
		states[n] = paymentState(in.Invoices[n])
		return states[n]
	}
	drop := make([]bool, len(items))
	for _, k := range keys {
		sub := bySub[k]
		sortItems(sub)
		ds := in.Invoices[sub[0].invoice].DataSourceUUID
		rules := in.Sources[ds]
		periodEnd := in.settingsFor(ds).ChurnRecognition == ChurnAtPeriodEnd
		var order []int
		groups := map[int][]pricedItem{}
		for _, it := range sub {
			if _, ok := groups[it.invoice]; !ok {
				order = append(order, it.invoice)
			}
			groups[it.invoice] = append(groups[it.invoice], it)
		}
		live := false
		var lastStart, lastEnd time.Time
		for _, n := range order {
			g := groups[n]
			start := g[0].ServicePeriodStart
			if live && (!periodEnd || start.After(lastEnd)) && slices.ContainsFunc(cancels[k], func(c time.Time) bool {
				return c.After(lastStart) && !c.After(start)
			}) {
				live = false // a return after a cancellation starts the subscription again
			}
			ir := rules.invoiceRules(in.Invoices[n])
			required := ir.UpdateWhen
			if !live {
				required = ir.CreateWhen
			}
			if paymentRank[state(n)] < paymentRank[required] {
				for _, it := range g {
					drop[it.seq] = true
				}
				continue
			}
			for _, it := range g {
				if it.ServicePeriodStart.After(lastStart) {
					lastStart = it.ServicePeriodStart
				}
				if it.ServicePeriodEnd.After(lastEnd) {
					lastEnd = it.ServicePeriodEnd
				}
				if it.Type == ItemSubscription && it.price.native.Sign() > 0 {
					live = true // billed above $0 (§1.3)
				}
			}
		}
	}
	return slices.DeleteFunc(items, func(it pricedItem) bool { return drop[it.seq] })
}

// cancellationDates are the subscriptions' cancellations as §1.6 collects them (line
// items' cancelled_at unless a cancellation history replaces them, and the standing
// cancellation events), by subscription key, for telling a return from a renewal.
func cancellationDates(in Input, items []pricedItem) map[string][]time.Time {
	out := map[string][]time.Time{}
	replaced := map[string]bool{}
	for _, h := range in.CancellationHistory {
		k := subscriptionKey(h.DataSourceUUID, h.SubscriptionExternalID)
		out[k], replaced[k] = append([]time.Time(nil), h.Dates...), true
	}
	for _, it := range items {
		k := subscriptionKey(in.Invoices[it.invoice].DataSourceUUID, it.SubscriptionExternalID)
		if !it.CancelledAt.IsZero() && !replaced[k] {
			out[k] = append(out[k], it.CancelledAt)
		}
	}
	for _, e := range liveEvents(in.Events) {
		if e.EventType == EventCancelled || e.EventType == EventCancellationScheduled {
			k := subscriptionKey(e.DataSourceUUID, e.SubscriptionExternalID)
			out[k] = append(out[k], in.cancellationDate(e))
		}
	}
	return out
}
