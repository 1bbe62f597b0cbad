// Package accountseries keeps the account-level Metrics API series and the account
// activity log up to date, one customer at a time. It computes what each customer adds
// to the pre-aggregated buckets and leaves their storage to store.SeriesStorage, so it has no
// AWS code.
//
// The series are built once per process on the store (its store.SeriesStorage):
//
//	series := accountseries.New(st.Series())
//
// The recomputation calls, after recomputing a customer with the metrics engine:
//
//	err := series.Apply(ctx, accountID, result, accountseries.CustomerAttrs{...})
//
// and, when a customer is deleted (or merged away):
//
//	err := series.Remove(ctx, accountID, customerUUID)
//
// Apply needs no "before" result and no version from the caller: it records, per
// customer, the exact numbers it added to the buckets and a hash of its inputs (the
// real movements, the customer attributes, the account calendar). A call whose hash
// equals the recorded one writes nothing (one GetItem); otherwise it adds the
// difference between the new contribution and the recorded one. The difference is
// stored first as pending chunks on the customer's record, then each chunk is added
// to the bucket items in one transaction that also deletes the chunk from the record,
// conditioned on its presence: a redelivered or retried call finishes the pending
// chunks and never adds one twice. Activities (the customer's movements) are upserted
// and deleted by difference with the previous set, idempotently.
//
// Layout (docs/metrics-api.md): per segment ("all", "geo:US", "plan:pl_…",
// "geo:US:plan:pl_…") one partition with a month item per calendar month (per-day
// sums), a year item per year (per-month nets) and an index item (per-year nets); a
// metrics request reads the index, one year item and the month items of its window,
// whatever the number of customers.
package accountseries
