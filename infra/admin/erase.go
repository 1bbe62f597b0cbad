package main

import (
	"context"
	"errors"
	"time"

	"github.com/subsight/subsight/shared/blobs"
)

// objectEraser deletes the objects under a prefix of the import bucket (blobs.Store).
type objectEraser interface {
	DeletePrefix(ctx context.Context, prefix string) (int, error)
}

// defaultSettle outlasts what was already running when the account was closed: a
// worker invocation (60 s, the workers' Timeout in shared/routes) or an API request
// (10 s). Work that starts later finds the account gone and writes nothing.
const defaultSettle = 90 * time.Second

// deleteAccount deletes an account with everything it has (docs/operations.md,
// "Deleting an account"): first it is made unusable (keys, rate item, account item),
// then every item of its partitions and every object under its prefixes goes; after
// the settle time the sweep runs again, for what work in flight at the closing wrote.
// The account's queued messages are dropped by the workers as they arrive. Repeatable:
// a run cut short is finished by running it again.
func deleteAccount(ctx context.Context, e env, args []string) error {
	fs := newFlags("delete-account")
	account := fs.String("account", "", "account id")
	settle := fs.Duration("settle", defaultSettle, "wait before the second sweep, for work that was running at the closing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *account == "" {
		return errors.New("-account is required")
	}
	if e.objects == nil {
		return errors.New("no import bucket: pass -bucket NAME (the stack's ImportBucketName output), set IMPORT_BUCKET, or use -local")
	}
	if err := e.store.CloseAccount(ctx, *account); err != nil {
		return err
	}
	items, objects, err := sweepAccount(ctx, e, *account)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(*settle):
	}
	lateItems, lateObjects, err := sweepAccount(ctx, e, *account)
	if err != nil {
		return err
	}
	return printJSON(e.stdout, map[string]any{"account_id": *account, "status": "deleted",
		"items": items + lateItems, "objects": objects + lateObjects, "late_items": lateItems, "late_objects": lateObjects})
}

// sweepAccount deletes every item and object of the account and counts them.
func sweepAccount(ctx context.Context, e env, accountID string) (items, objects int, err error) {
	if items, err = e.store.EraseAccountItems(ctx, accountID); err != nil {
		return items, 0, err
	}
	for _, prefix := range blobs.AccountPrefixes(accountID) {
		n, err := e.objects.DeletePrefix(ctx, prefix)
		objects += n
		if err != nil {
			return items, objects, err
		}
	}
	return items, objects, nil
}
