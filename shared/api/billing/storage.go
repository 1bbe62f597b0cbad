package billing

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the billing operations (plans and plan groups, invoices, subscription
// events, subscriptions) use of the store: the aggregates they call, no more. The wiring
// hands out the union, api.Storage; the operations see it through storage.
type Storage interface {
	store.Accounts
	store.BillingIndexes
	store.Customers
	store.Invoices
	store.PlanGroups
	store.Plans
	store.SubscriptionEvents
	store.Subscriptions
}

// storage is the store as these operations see it.
func storage(d *api.Deps) Storage { return d.Store }
