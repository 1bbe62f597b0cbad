// Package engine turns one customer's imported billing records (invoices, line items,
// transactions, subscription events, cancellation histories, connected subscriptions) into
// that customer's subscriptions, MRR over time, MRR movements and status, following
// the rules §1 to §5 of docs/metrics-engine.md (§n in this package refers to them).
//
// It is pure: no clock, no I/O, no AWS. The same Input always gives the same Result, so a
// worker can recompute a customer and skip the write when nothing changed. The choices made
// where the rules are ambiguous are listed in docs/metrics-engine.md.
package engine
