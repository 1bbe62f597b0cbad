package metricsapi

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/metricsfilter"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the Metrics API operations (metrics, activities and their export, a
// customer's subscriptions and activities, connected subscriptions) use of the store:
// the aggregates they call, no more. The wiring hands out the union, api.Storage; the
// operations see it through storage.
type Storage interface {
	store.Accounts
	store.Activities
	store.ActivitiesExports
	store.BillingIndexes
	store.Connections
	store.Metrics
	store.Subscriptions
	metricsfilter.Storage
}

// storage is the store as these operations see it.
func storage(d *api.Deps) Storage { return d.Store }
