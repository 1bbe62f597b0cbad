// Package store is the contract between the service and its storage: the types they
// exchange (pages and their opaque tokens, filters, updates, the records of imports and
// recomputations), the errors storage reports, and one interface per aggregate. It
// imports no AWS package; the DynamoDB implementation is package store/dynamo, and
// only the wiring (shared/app, infra) builds it. A consumer depends on the aggregates
// it uses, composed into an interface of its own where it needs several.
package store

import "errors"

// Errors the store reports; callers turn them into apperr values.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("already exists")
)

// Page is one page of any listing. Next is where the listing continues after the last
// item returned (also on the last page), nil when the page is empty; a page cut short
// by a request bound continues instead where the reading stopped (a listing reads at most a bounded number of items per request).
// Total counts every item of the listing when TotalKnown, which only listings that
// know it without more requests set.
type Page[T any] struct {
	Items      []T
	Next       PageToken
	HasMore    bool
	Total      int
	TotalKnown bool
}

// Store is every aggregate: what the storage implementation provides.
type Store interface {
	Accounts
	APIKeys
	AttributeDefinitions
	FXRates
	Customers
	Contacts
	Notes
	Plans
	DataSources
	BillingIndexes
	Invoices
	Subscriptions
	SubscriptionEvents
	Imports
	ImportLanes
	Metrics
	Connections
	Merges
	Unmerges
	Opportunities
	Tasks
	PlanGroups
	Activities
	ActivitiesExports
	DeadLetters
	StripeConnections
}
