// Package series aggregates customers' MRR movements into the account-level series of the
// Metrics API (/v1/metrics/...), following the rules §6 of docs/metrics-engine.md.
//
// It is built for incremental maintenance: a customer's Contribution is a handful of day
// buckets (movement sums, customer-count changes, first payments) plus "lost customer" counts
// per calendar period. Contributions are additive, so when a customer is recomputed a worker
// adds new − old to the stored aggregate and a metrics request reads only buckets, whatever
// the number of customers. The layout is described in docs/metrics-engine.md.
package series
