// Package series stores what the metrics keep in the single table: each customer's
// metrics state and wake-ups, the account series (buckets, shards, each customer's
// applied record) and their resharding, merges in flight, and the activity log with
// its exports.
package series

import (
	"context"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// Store reads and writes the metrics' items.
type Store struct {
	t         *table.Table
	accounts  accounts
	customers customers
}

// accounts is what the metrics read of the account aggregate: the calendar the
// series follow and the data sources a reshard walks.
type accounts interface {
	GetAccount(ctx context.Context, accountID string) (model.Account, error)
	ListDataSources(ctx context.Context, accountID string) ([]model.DataSource, error)
}

// customers is what the metrics read of the customer aggregate.
type customers interface {
	GetCustomer(ctx context.Context, accountID, customerUUID string) (model.Customer, error)
}

// New returns the metrics' store on t, reading accounts and customers through a and c.
func New(t *table.Table, a accounts, c customers) *Store {
	return &Store{t: t, accounts: a, customers: c}
}
