package stripeconn

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the Stripe connection operations use of the store: the data source
// they belong to and the connections. The wiring hands out the union, api.Storage; the
// operations see it through storage.
type Storage interface {
	store.DataSources
	store.StripeConnections
}

// storage is the store as these operations see it.
func storage(d *api.Deps) Storage { return d.Store }
