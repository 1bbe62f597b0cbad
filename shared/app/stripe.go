package app

import (
	"errors"

	"github.com/subsight/subsight/shared/fifo"
	"github.com/subsight/subsight/shared/stripesync"
	"github.com/subsight/subsight/shared/stripewebhook"
	"github.com/subsight/subsight/shared/workers"
)

// StripeWebhooks is what the Stripe webhook endpoint uses: the connections in the
// store, the sealer of their secrets, the bucket (events under stripe/) and the Stripe
// events queue.
func (d *Deps) StripeWebhooks() *stripewebhook.Deps {
	return &stripewebhook.Deps{Connections: d.Store, Sealer: d.Secrets, Events: d.Files,
		Queue: fifo.New(d.Clients.SQS, d.Config.StripeEventQueueURL, "STRIPE_EVENT_QUEUE_URL"), Now: d.Now}
}

// stripeEvents is what the Stripe events worker uses: the webhook's dependencies and
// the sync, which applies each event through the import pipeline and asks for its
// customers' recomputations in the jobs queue (the lane of changes made through the API:
// a live event never waits behind an import), removing a customer deleted in Stripe
// through the worker's purge.
func (d *Deps) stripeEvents(w *workers.Deps) *stripewebhook.Deps {
	s := d.StripeWebhooks()
	s.Applier = stripesync.New(stripesync.Config{Pipeline: d.Imports, Store: d.Store, Jobs: d.Jobs, Now: d.Now, Purger: w})
	s.Waiting = func(err error) bool { return errors.Is(err, stripesync.ErrNotYet) }
	return s
}
