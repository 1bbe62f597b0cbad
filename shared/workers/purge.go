package workers

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// purgeDataSource deletes a data source and everything imported into it: its
// customers (with their partitions: contacts, notes, invoices, subscriptions), the
// items of its own partition (plans, external-id reservations), then the source
// itself. Every step is idempotent, so a redelivery finishes an interrupted purge.
func purgeDataSource(ctx context.Context, d *app.Deps, job jobs.Message) error {
	ds, err := d.Store.GetDataSource(ctx, job.AccountID, job.DataSourceUUID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // already purged
	}
	if err != nil {
		return err
	}
	customers, err := purgeCustomers(ctx, d, job.AccountID, ds.UUID)
	if err != nil {
		return err
	}
	n, err := d.Store.DeletePartition(ctx, keys.DataSourcePartition(job.AccountID, ds.UUID))
	if err != nil {
		return err
	}
	if err := d.Store.DeleteDataSource(ctx, job.AccountID, ds.UUID); err != nil {
		return err
	}
	slog.InfoContext(ctx, "data source purged", "account_id", job.AccountID, "data_source_uuid", ds.UUID,
		"customers", customers, "items", n)
	return nil
}

// purgeCustomers deletes the customers that came only from the data source; a merged
// customer that also has other sources keeps them and only loses this one.
func purgeCustomers(ctx context.Context, d *app.Deps, accountID, dsUUID string) (int, error) {
	filter := store.CustomerFilter{DataSourceUUID: dsUUID}
	count := 0
	for {
		// Deleting as we go shifts the listing, so always read from the start.
		page, err := d.Store.ListCustomers(ctx, accountID, filter, 100, nil)
		if err != nil {
			return count, err
		}
		for _, c := range page.Items {
			if err := purgeCustomer(ctx, d, c, dsUUID); err != nil {
				return count, err
			}
			count++
		}
		if !page.HasMore {
			return count, nil
		}
	}
}

func purgeCustomer(ctx context.Context, d *app.Deps, c model.Customer, dsUUID string) error {
	others := slices.DeleteFunc(slices.Clone(c.DataSourceUUIDs), func(s string) bool { return s == dsUUID })
	if len(others) == 0 {
		err := d.Store.DeleteCustomer(ctx, c)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	updated := c
	updated.DataSourceUUIDs, updated.ExternalIDs = nil, nil
	for i, s := range c.DataSourceUUIDs {
		if s != dsUUID {
			updated.DataSourceUUIDs = append(updated.DataSourceUUIDs, s)
			if i < len(c.ExternalIDs) {
				updated.ExternalIDs = append(updated.ExternalIDs, c.ExternalIDs[i])
			}
		}
	}
	if updated.DataSourceUUID == dsUUID && len(updated.ExternalIDs) > 0 {
		updated.DataSourceUUID, updated.ExternalID = updated.DataSourceUUIDs[0], updated.ExternalIDs[0]
	}
	return d.Store.SaveCustomer(ctx, c, updated)
}
