package keys

// TypeStripeConnection is a data source's link to a Stripe account.
const TypeStripeConnection = "stripe_connection"

// StripeConnection is the connection of a data source, in a partition of its own that
// the data source's uuid alone finds: the webhook endpoint, which carries no API key,
// learns the account from the item (which holds the account id). Like APIKeyByHash it
// is a global item, so the account's erasure and the data source's purge delete it by
// key rather than by partition.
func StripeConnection(dsUUID string) Key {
	return Key{PK: "STRIPECONN" + sep + dsUUID, SK: "STRIPECONN"}
}
