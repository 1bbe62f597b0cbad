package app

import (
	"github.com/subsight/subsight/shared/fifo"
	"github.com/subsight/subsight/shared/stripewebhook"
)

// StripeWebhooks is what the Stripe webhook endpoint uses: the connections in the
// store, the sealer of their secrets, the bucket (events under stripe/) and the Stripe
// events queue.
func (d *Deps) StripeWebhooks() *stripewebhook.Deps {
	return &stripewebhook.Deps{Connections: d.Store, Sealer: d.Secrets, Events: d.Files,
		Queue: fifo.New(d.Clients.SQS, d.Config.StripeEventQueueURL, "STRIPE_EVENT_QUEUE_URL"), Now: d.Now}
}
