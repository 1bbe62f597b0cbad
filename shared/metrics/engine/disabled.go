package engine

import "slices"

// enabled is the input without its disabled records (§1.7): a disabled invoice goes
// with its line items and transactions, a disabled line item, transaction or event
// alone. The result is then exactly the one of an input that never had them, so
// enabling a record again restores the previous result.
func (in Input) enabled() Input {
	if !in.hasDisabled() {
		return in
	}
	out := in
	out.Invoices = make([]Invoice, 0, len(in.Invoices))
	for _, inv := range in.Invoices {
		if inv.Disabled {
			continue
		}
		inv.LineItems = slices.DeleteFunc(slices.Clone(inv.LineItems), func(li LineItem) bool { return li.Disabled })
		inv.Transactions = slices.DeleteFunc(slices.Clone(inv.Transactions), func(t Transaction) bool { return t.Disabled })
		out.Invoices = append(out.Invoices, inv)
	}
	out.Events = slices.DeleteFunc(slices.Clone(in.Events), func(e SubscriptionEvent) bool { return e.Disabled })
	return out
}

func (in Input) hasDisabled() bool {
	for _, inv := range in.Invoices {
		if inv.Disabled || slices.ContainsFunc(inv.LineItems, func(li LineItem) bool { return li.Disabled }) ||
			slices.ContainsFunc(inv.Transactions, func(t Transaction) bool { return t.Disabled }) {
			return true
		}
	}
	return slices.ContainsFunc(in.Events, func(e SubscriptionEvent) bool { return e.Disabled })
}
