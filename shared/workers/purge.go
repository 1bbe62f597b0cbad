package workers

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// purgeDataSource deletes a data source and everything imported into it: the
// records its customers have from it (invoices with their line items and
// transactions, subscriptions, subscription events), the customers that have no
// other source (with their partitions: contacts, notes), the status items of its
// imports, the items of its partitions (plans, imports, the shards of external-id
// reservations),
// then the source itself. Every step is idempotent, so a redelivery finishes an
// interrupted purge.
func purgeDataSource(ctx context.Context, d *Deps, job jobs.Message) error {
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
	imports, err := d.Store.ImportIDs(ctx, job.AccountID, ds.UUID)
	if err != nil {
		return err
	}
	for _, id := range imports {
		if _, err := deletePartitions(ctx, d, keys.ImportCustomersPartitions(job.AccountID, id)); err != nil {
			return err
		}
	}
	n, err := deletePartitions(ctx, d, keys.DataSourcePartitions(job.AccountID, ds.UUID))
	if err != nil {
		return err
	}
	if err := d.Store.DeleteDataSource(ctx, job.AccountID, ds.UUID); err != nil {
		return err
	}
	slog.InfoContext(ctx, "data source purged", "account_id", job.AccountID, "data_source_uuid", ds.UUID,
		"customers", customers, "imports", len(imports), "items", n)
	return nil
}

// deletePartitions deletes the items of every partition of pks (the write shards of one
// collection) and returns how many it deleted.
func deletePartitions(ctx context.Context, d *Deps, pks []string) (int, error) {
	n := 0
	for _, pk := range pks {
		deleted, err := d.Store.DeletePartition(ctx, pk)
		if err != nil {
			return n, err
		}
		n += deleted
	}
	return n, nil
}

// purgeCustomers takes the data source away from each of its customers.
func purgeCustomers(ctx context.Context, d *Deps, accountID, dsUUID string) (int, error) {
	filter := store.CustomerFilter{DataSourceUUID: dsUUID}
	count := 0
	for {
		// A purged customer leaves the listing, so always read from the start.
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

// purgeCustomer removes the customer's records of the data source, asks for its
// recomputation, then deletes the customer if it had no other source, or else drops
// the source (and its external ids there) from it. The customer leaves the purge's
// listing only at that last step, so a redelivery after a failure in between finds it
// again; the recomputation is asked for before, and sees the records already gone
// (or, once the customer is deleted, removes it from the account's series).
func purgeCustomer(ctx context.Context, d *Deps, c model.Customer, dsUUID string) error {
	if err := d.Store.DeleteCustomerSourceBilling(ctx, c.AccountID, c.UUID, dsUUID); err != nil {
		return err
	}
	if err := d.Recomputes.Send(ctx, jobs.Recompute(c.AccountID, c.UUID, "purge:"+dsUUID)); err != nil {
		return err
	}
	if !slices.ContainsFunc(c.DataSourceUUIDs, func(s string) bool { return s != dsUUID }) {
		err := d.Store.DeleteCustomer(ctx, c)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	for attempt := 0; ; attempt++ {
		err := d.Store.SaveCustomer(ctx, c, withoutSource(c, dsUUID))
		if !errors.Is(err, store.ErrConflict) || attempt == 4 {
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return err
		}
		if c, err = d.Store.GetCustomer(ctx, c.AccountID, c.UUID); err != nil {
			return err
		}
	}
}

// withoutSource is c without its (data source, external id) pairs of dsUUID; its
// main external id moves to a remaining pair if it was of that source.
func withoutSource(c model.Customer, dsUUID string) model.Customer {
	next := c
	next.DataSourceUUIDs, next.ExternalIDs = nil, nil
	for i, s := range c.DataSourceUUIDs {
		if s != dsUUID && i < len(c.ExternalIDs) {
			next.DataSourceUUIDs = append(next.DataSourceUUIDs, s)
			next.ExternalIDs = append(next.ExternalIDs, c.ExternalIDs[i])
		}
	}
	if next.DataSourceUUID == dsUUID && len(next.ExternalIDs) > 0 {
		next.DataSourceUUID, next.ExternalID = next.DataSourceUUIDs[0], next.ExternalIDs[0]
	}
	return next
}
