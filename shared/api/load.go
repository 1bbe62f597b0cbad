package api

import (
	"context"
	"errors"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/store"
)

// loadByID reads an object of the account by its prefixed id. A malformed id answers
// malformed (for most resources the same 404 as an unknown one: an id that cannot
// exist is not found), an unknown one notFound; storage failures pass through.
func loadByID[T any](ctx context.Context, uuid, prefix string, malformed, notFound *apperr.Error,
	get func(context.Context, string) (T, error)) (T, error) {
	var zero T
	if !ids.Valid(uuid, prefix) {
		return zero, malformed
	}
	v, err := get(ctx, uuid)
	if errors.Is(err, store.ErrNotFound) {
		return zero, notFound
	}
	return v, err
}
