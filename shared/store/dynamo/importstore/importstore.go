// Package importstore stores the imports in the single table: each import's record
// and status, its customers' statuses, the lanes that share the import work between
// accounts, and the import's reads and writes of a batch of customers with their
// billing records (the item encodings of packages crm and billing).
package importstore

import (
	"context"

	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// Store reads and writes the imports.
type Store struct {
	t           *table.Table
	dataSources dataSources
}

// dataSources is what the imports read of the account aggregate.
type dataSources interface {
	ImportIDs(ctx context.Context, accountID, dsUUID string) ([]string, error)
}

// New returns the imports' store on t; ds lists a data source's imports.
func New(t *table.Table, ds dataSources) *Store { return &Store{t: t, dataSources: ds} }
