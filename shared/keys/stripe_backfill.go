package keys

// TypeStripeBackfill is the entity type of a data source's latest Stripe backfill.
const TypeStripeBackfill = "stripe_backfill"

// StripeBackfill is the latest Stripe backfill of a data source: in the data source's
// partition, so that purging the data source deletes it.
func StripeBackfill(accountID, dsUUID string) Key {
	return Key{PK: DataSourcePartition(accountID, dsUUID), SK: "STRIPE_BACKFILL"}
}
