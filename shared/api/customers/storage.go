package customers

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the customer operations (customers, contacts, custom attributes, tags,
// merges and unmerges) use of the store: the aggregates they call, no more. The wiring
// hands out the union, api.Storage; the operations see it through storage.
type Storage interface {
	store.Accounts
	store.AttributeDefinitions
	store.Contacts
	store.Customers
	store.Merges
	store.Unmerges
}

// storage is the store as these operations see it.
func storage(d *api.Deps) Storage { return d.Store }
