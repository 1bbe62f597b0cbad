package routes

import (
	"github.com/subsight/subsight/shared/stripewebhook"
	"github.com/subsight/subsight/shared/stripeworkers"
)

// sendStripeEvents sends to the Stripe events queue, sendStripeBackfills to the Stripe
// backfill queue; openSecrets decrypts the data sources' sealed secrets (the stack's
// SecretsKey, each opening bound to its account and data source by the encryption
// context).
var (
	sendStripeEvents    = Access{{Name: "SendStripeEvents", Resources: []string{"StripeEventQueue"}, Actions: []string{"sqs:SendMessage"}}}
	sendStripeBackfills = Access{{Name: "SendStripeBackfills", Resources: []string{"StripeBackfillQueue"}, Actions: []string{"sqs:SendMessage"}}}
	openSecrets         = Access{{Name: "OpenSecrets", Resources: []string{"SecretsKey"}, Actions: []string{"kms:Decrypt"}}}
	// syncWrites are the sync's writes of a Stripe customer's records through the
	// import pipeline's per-customer step.
	syncWrites = table("BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "ConditionCheckItem")
)

// stripeWebhookFunctions receive a Stripe data source's webhook deliveries and apply
// them (docs/stripe.md, "Receiving webhooks").
var stripeWebhookFunctions = []Function{
	// The webhook endpoint: no API key; the data source's connection is read (one
	// GetItem), its secret opened and the signature checked before anything is stored;
	// a verified event goes into the Stripe events queue, in its message when it fits
	// (stripewebhook.InlineLimit), else in the bucket under stripe/ first. A route throttle of its own: anyone may call it, and every call that names
	// a connected data source costs a read. The Globals' 512 MB (0.29 vCPU): decoding
	// an event takes about 0.3 ms of CPU a 3 KB event and 90 ms a megabyte on a whole
	// vCPU, so a 4 MB event stays near a second.
	{Name: "ReceiveStripeWebhook", Family: "Webhooks", StripeWebhook: stripewebhook.Receiver,
		Routes: []Route{post("/stripe/webhooks/{data_source_uuid}")}, Throttle: "StripeWebhook",
		Access: access(table("GetItem"), openSecrets, objects("stripe/", "PutObject"), sendStripeEvents)},
	// The Stripe events worker applies each event through the sync, one Stripe
	// customer's events in order; it and the backfill worker are the only workers that
	// link stripe-go. Ten batches of ten at once: the webhook route's throttle
	// (StripeWebhookThrottleRate, 100 a second) is what it must keep up with, and one
	// batch of ten customers' events takes well under a second (docs/benchmarks.md,
	// "Stripe webhooks"). It reads Stripe's API only for what an event does not carry
	// (a price, an invoice's further lines), with the connection's key.
	{Name: "StripeEventWorker", Worker: stripeworkers.Events, MemorySize: 1024, Timeout: 60,
		ReservedConcurrency: "StripeEventWorkerReservedConcurrency",
		Queues:              []QueueSource{{Queue: "StripeEventQueue", BatchSize: 10, MaxConcurrency: 10}},
		Access: access(table("GetItem"), objects("stripe/", "GetObject"), sendJobs,
			because("the sync's writes of an event's records through the import pipeline's per-customer step", syncWrites),
			because("a price an event does not carry is read from Stripe with the connection's key; the parity event needs none", openSecrets))},
	// The Stripe backfill worker runs the steps of Stripe backfills (reading Stripe's API
	// with a connection's key, opened with the stack's SecretsKey), on a lane of their
	// own: a step holds its invocation for up to about 45 s, which would keep webhook
	// events waiting in a shared lane. One step a batch and five at once
	// (StripeBackfillWorkerReservedConcurrency): a data source's steps follow each other in
	// its message group, so five backfills read at once deployment-wide, each at its
	// connection's 20 requests a second, and write about 2,000 units a second in all,
	// half of what a new on-demand table serves; a sixth waits its turn step by step
	// (docs/stripe.md, "What one account's backfill costs the others").
	{Name: "StripeBackfillWorker", Worker: stripeworkers.Backfills, MemorySize: 1024, Timeout: 60,
		ReservedConcurrency: "StripeBackfillWorkerReservedConcurrency",
		Queues:              []QueueSource{{Queue: "StripeBackfillQueue", BatchSize: 1, MaxConcurrency: 5}},
		Access: access(table("GetItem"), openSecrets,
			because("a step applies its customers through the sync and asks for their recomputations; the parity step's Stripe account has no customer",
				access(syncWrites, sendJobs)),
			because("a step that has more to read sends the next step; the parity step reads one page", sendStripeBackfills))},
}
