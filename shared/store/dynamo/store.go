// Package dynamo is the DynamoDB implementation of the storage contract (package
// store): one store per aggregate (packages accounts, crm, plans, billing, importstore, series), each mapping
// its domain types to items of the single table (keys come from package keys) through
// one shared handle (package table), composed into Store, which adds only the
// operations that span aggregates. Only the wiring builds it.
package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/accounts"
	"github.com/subsight/subsight/shared/store/dynamo/billing"
	"github.com/subsight/subsight/shared/store/dynamo/crm"
	"github.com/subsight/subsight/shared/store/dynamo/importstore"
	"github.com/subsight/subsight/shared/store/dynamo/plans"
	"github.com/subsight/subsight/shared/store/dynamo/series"
	"github.com/subsight/subsight/shared/store/dynamo/stripeconn"
	"github.com/subsight/subsight/shared/store/dynamo/stripestate"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// Store reads and writes the single table: every aggregate's store, sharing one
// handle, and the operations that span aggregates.
type Store struct {
	*accountStore
	*crmStore
	*planStore
	*billingStore
	*importStore
	*seriesStore
	*stripeStore
	*stripeStateStore
	t *table.Table
}

// The aggregates' stores, named apart so that Store embeds them all.
type (
	accountStore = accounts.Store
	crmStore     = crm.Store
	planStore    = plans.Store
	billingStore = billing.Store
	importStore  = importstore.Store
	seriesStore  = series.Store
	stripeStore  = stripeconn.Store
	// stripeStateStore is what the Stripe source keeps between events.
	stripeStateStore = stripestate.Store
)

var (
	_ store.Store      = (*Store)(nil)
	_ store.StripeSync = (*Store)(nil)
)

// New returns a store on table.
func New(db *dynamodb.Client, tableName string, now func() time.Time) *Store {
	t := table.New(db, tableName, now)
	acc, cus, pl := accounts.New(t), crm.New(t), plans.New(t)
	return &Store{accountStore: acc, crmStore: cus, planStore: pl, billingStore: billing.New(t, acc, pl),
		importStore: importstore.New(t, acc), seriesStore: series.New(t, acc, cus),
		stripeStore: stripeconn.New(t), stripeStateStore: stripestate.New(t), t: t}
}
