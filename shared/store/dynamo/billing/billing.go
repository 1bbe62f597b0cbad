// Package billing stores the billing aggregate in the single table: invoices with their line items and transactions (and the locators of their
// external ids), subscriptions, subscription events, and each customer's billing
// index. The item encodings are exported for the import, which writes a customer's
// billing records in its own transactions.
package billing

import (
	"context"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// Store reads and writes the billing aggregate.
type Store struct {
	t           *table.Table
	dataSources dataSources
	plans       planReferences
}

// dataSources is what the invoice listing reads of the account aggregate.
type dataSources interface {
	ListDataSources(ctx context.Context, accountID string) ([]model.DataSource, error)
}

// planReferences is how a customer's billing index marks the plans its records use.
type planReferences interface {
	MarkPlanReferenced(ctx context.Context, accountID, dsUUID, planUUID string) error
	ReleasePlanReference(ctx context.Context, accountID, dsUUID, planUUID string) error
}

// New returns the billing aggregate's store on t; the invoice listing reads the
// account's data sources from ds, and the billing indexes mark plans in use through p.
func New(t *table.Table, ds dataSources, p planReferences) *Store {
	return &Store{t: t, dataSources: ds, plans: p}
}
