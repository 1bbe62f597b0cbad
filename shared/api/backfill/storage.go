package backfill

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the backfill operations use of the store: the data sources, their
// Stripe connections and backfills. The wiring hands out the union, api.Storage; the
// operations see it through storage.
type Storage interface {
	store.DataSources
	store.StripeConnections
	store.StripeBackfills
}

// storage is the store as these operations see it.
func storage(d *api.Deps) Storage { return d.Store }
