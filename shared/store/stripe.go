package store

import (
	"context"
	"time"

	"github.com/subsight/subsight/shared/model"
)

// StripeConnections are the data sources' links to Stripe accounts. A connection is
// found by its data source's uuid alone: the webhook endpoint, which carries no API key,
// learns the account from it.
type StripeConnections interface {
	// PutStripeConnection creates or replaces the connection of c's data source.
	PutStripeConnection(ctx context.Context, c model.StripeConnection) error
	// ReplaceStripeConnection replaces the account's connection of c's data source if
	// it was last updated at prev (ErrConflict otherwise, or when it is gone).
	ReplaceStripeConnection(ctx context.Context, c model.StripeConnection, prev time.Time) error
	// GetStripeConnection reads the connection of a data source (ErrNotFound if none).
	GetStripeConnection(ctx context.Context, dsUUID string) (model.StripeConnection, error)
	// DeleteStripeConnection removes the connection of the account's data source
	// (idempotent).
	DeleteStripeConnection(ctx context.Context, accountID, dsUUID string) error
	// RemoveStripeConnection removes the connection of the account's data source and
	// returns what it held (ErrNotFound if there was none).
	RemoveStripeConnection(ctx context.Context, accountID, dsUUID string) (model.StripeConnection, error)
	// RestoreStripeConnection puts back a removed connection, unless another has taken
	// its place meanwhile (ErrConflict).
	RestoreStripeConnection(ctx context.Context, c model.StripeConnection) error
}
