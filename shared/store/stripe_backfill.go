package store

import (
	"context"

	"github.com/subsight/subsight/shared/model"
)

// StripeBackfills are the data sources' Stripe backfills: the latest one of each.
type StripeBackfills interface {
	// StartStripeBackfill stores b as its data source's latest backfill, unless the one
	// stored is still queued or running (ErrConflict).
	StartStripeBackfill(ctx context.Context, b model.StripeBackfill) error
	// GetStripeBackfill reads a data source's latest backfill (ErrNotFound if none).
	GetStripeBackfill(ctx context.Context, accountID, dsUUID string) (model.StripeBackfill, error)
	// SaveStripeBackfill stores b's progress if the stored backfill is b, unfinished, and
	// still at pages pages of customers done (ErrConflict otherwise: another step moved
	// it on, or a new backfill replaced it).
	SaveStripeBackfill(ctx context.Context, b model.StripeBackfill, pages int) error
}
