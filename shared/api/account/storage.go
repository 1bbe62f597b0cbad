package account

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the account operations (the connectivity check, the account, data
// sources) use of the store: the aggregates they call, no more. The wiring hands out the
// union, api.Storage; the operations see it through storage.
type Storage interface {
	store.Accounts
	store.DataSources
	store.Imports
	// StripeConnections: a deleted data source stops taking Stripe's deliveries at once.
	store.StripeConnections
}

// storage is the store as these operations see it.
func storage(d *api.Deps) Storage { return d.Store }
