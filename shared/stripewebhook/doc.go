// Package stripewebhook receives a Stripe data source's webhook deliveries and hands
// each event, in order per Stripe customer, to the sync that applies it.
//
// Intake (Deps.Receive, the public endpoint POST /stripe/webhooks/{data_source_uuid}):
// the data source's connection is read (one GetItem), its sealed webhook secret opened,
// the Stripe-Signature header verified over the raw body (stripesource.Verifier), and
// only then is the event made durable: one message in the Stripe events FIFO queue,
// grouped by the Stripe customer the event concerns, that carries the event when it
// fits (InlineLimit) or else names its raw body, put in the bucket under stripe/ first.
// Nothing is stored for a delivery that fails any check.
//
// Worker (Deps.ApplyBatch, the Stripe events queue's batches): each message's event is
// taken from the message or read back from the bucket, decoded into a stripe.Event (not
// verified again: only verified events are queued) and applied through an EventApplier
// with the data source's connection as it is now.
//
// It imports no AWS package: the bucket, the queue, the store and the sealer are
// contracts the wiring fills (docs/stripe.md, "Receiving webhooks").
package stripewebhook
