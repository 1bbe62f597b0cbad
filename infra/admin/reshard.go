package main

import (
	"context"
)

// reshard moves the account's items written before the write shards to their shard
// (dynamo.Store.Reshard) and prints how many it moved. Safe while the service runs
// and when repeated; a second run prints zeros.
func reshard(ctx context.Context, e env, args []string) error {
	fs := newFlags("reshard")
	account := fs.String("account", "", "account id")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := requireAccount(ctx, e, *account); err != nil {
		return err
	}
	c, err := e.store.Reshard(ctx, *account)
	if err != nil {
		return err
	}
	conflicts := c.Conflicts
	if conflicts == nil {
		conflicts = []string{}
	}
	return printJSON(e.stdout, map[string]any{"account_id": *account, "reservations_moved": c.Reservations,
		"reservation_conflicts": conflicts, "customers_rekeyed": c.Customers, "events_rekeyed": c.Events,
		"activities_rekeyed": c.Activities})
}
