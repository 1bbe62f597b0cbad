package keys

// Entity types of the Stripe source's items.
const (
	TypeStripeEvent  = "stripe_event"
	TypeStripeObject = "stripe_object"
	TypeStripePrice  = "stripe_price"
)

// StripeEvent marks a Stripe event applied to a data source; it expires (the table's
// TTL) once Stripe can no longer deliver the event again. It sits in the data source's
// reservation shard of the event id, so markers spread over the shards and go with the
// data source.
func StripeEvent(accountID, dsUUID, eventID string) Key {
	return Key{PK: DataSourceReservations(accountID, dsUUID, eventID), SK: "STRIPEEVT" + sep + eventID}
}

// StripeObject is what the Stripe source keeps of one Stripe object of a data source
// (the snapshot applied last, links), in the reservation shard of the object's id.
func StripeObject(accountID, dsUUID, objectID string) Key {
	return Key{PK: DataSourceReservations(accountID, dsUUID, objectID), SK: "STRIPEOBJ" + sep + objectID}
}

// StripePrice is a Stripe price seen by a data source: few, in the data source's
// partition.
func StripePrice(accountID, dsUUID, priceID string) Key {
	return Key{PK: DataSourcePartition(accountID, dsUUID), SK: "STRIPEPRICE" + sep + priceID}
}
