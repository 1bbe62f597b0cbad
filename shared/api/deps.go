package api

import (
	"context"
	"sync"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/cursor"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/store"
)

// Storage is the part of the store the HTTP operations use: every aggregate but the
// API keys (the authorizer's) and the exchange rates (the operator's).
type Storage interface {
	store.Accounts
	store.AttributeDefinitions
	store.Customers
	store.Contacts
	store.Notes
	store.Plans
	store.DataSources
	store.BillingIndexes
	store.Invoices
	store.Subscriptions
	store.SubscriptionEvents
	store.Imports
	store.Metrics
	store.Connections
	store.Merges
	store.Unmerges
	store.Opportunities
	store.Tasks
	store.PlanGroups
	store.Activities
	store.ActivitiesExports
	store.SeriesStore
	store.StripeConnections
	store.StripeBackfills
}

// Downloads signs download URLs of the bucket's objects (an activities export's file;
// on S3: blobs.Store).
type Downloads interface {
	DownloadURL(ctx context.Context, key string, ttl time.Duration) (string, error)
}

// Deps are what the HTTP operations use, built once per process by the wiring
// (shared/app); every operation is a func(*Deps) apigw.Endpoint.
type Deps struct {
	Store   Storage
	Cursors *cursor.Signer
	Jobs    jobs.Sender
	Imports *imports.Pipeline
	// Files are the activities exports' files.
	Files Downloads
	// StripeSteps takes the steps of Stripe backfills (the Stripe backfill queue).
	StripeSteps jobs.Sender
	// AppURL is the base URL of the web app (a customer's chartmogul_url).
	AppURL string
	// Secrets seal the data sources' secrets (on KMS: kmssealer.Sealer).
	Secrets secrets.Sealer
	// Now is the clock; tests replace it.
	Now func() time.Time

	seriesOnce sync.Once
	series     *accountseries.Series
}

// Series are the account series on the store, built on first use (by the metrics and
// activity operations only, so that the others do not link them).
func (d *Deps) Series() *accountseries.Series {
	d.seriesOnce.Do(func() { d.series = accountseries.New(d.Store.Series()) })
	return d.series
}
