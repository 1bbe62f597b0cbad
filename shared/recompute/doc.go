// Package recompute recomputes one customer's metrics from its stored records: it loads
// the records, maps them to engine.Input, runs the pure engine, and writes only what
// changed (customer mrr/arr/status/customer-since, the Metrics-API subscription rows,
// invalid-invoice markers, the scheduled re-run, the account series) before committing
// the result's hash. Recomputing an unchanged customer reads a few items and writes
// nothing. The layout is described in docs/metrics-engine.md, "Storage and recomputation".
package recompute
