package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
)

// purgeDataSource deletes a data source and everything imported into it: the
// records its customers have from it (invoices with their line items and
// transactions, subscriptions, subscription events), the customers that have no
// other source (with their partitions: contacts, notes), the status items of its
// imports, the items of its partitions (plans, imports, the shards of external-id
// reservations), with its Stripe connection first, then the source itself. Every step is idempotent, so a redelivery finishes an
// interrupted purge. A purge that outgrows one invocation continues in steps (steps).
func purgeDataSource(ctx context.Context, d *Deps, job jobs.Message) error {
	ds, err := d.Store.GetDataSource(ctx, job.AccountID, job.DataSourceUUID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // already purged
	}
	if err != nil {
		return err
	}
	// The Stripe connection goes first: webhook deliveries stop adding to a source
	// being purged.
	if err := d.Store.DeleteStripeConnection(ctx, job.AccountID, ds.UUID); err != nil {
		return err
	}
	emptied, err := emptySource(ctx, d, ds, false, "purge:"+ds.UUID, job.Resume)
	if err != nil {
		return err
	}
	if err := d.Store.DeleteDataSource(ctx, job.AccountID, ds.UUID); err != nil {
		return err
	}
	slog.InfoContext(ctx, "data source purged", "account_id", job.AccountID, "data_source_uuid", ds.UUID,
		"customers", emptied.customers, "imports", emptied.imports, "items", emptied.items)
	return nil
}

// emptyDataSource deletes what was imported into a data source and keeps the source
// (DELETE /v1/data_sources/{uuid}/all), or the source and its customers
// (…/dependent, job.KeepCustomers): the purge without its last step. A source being
// deleted is left to its purge, which deletes all of it anyway.
func emptyDataSource(ctx context.Context, d *Deps, job jobs.Message) error {
	ds, err := d.Store.GetDataSource(ctx, job.AccountID, job.DataSourceUUID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && ds.Status == model.DataSourceDeleting) {
		return nil
	}
	if err != nil {
		return err
	}
	emptied, err := emptySource(ctx, d, ds, job.KeepCustomers, "empty:"+ds.UUID+"#"+job.Nonce, job.Resume)
	if err != nil {
		return err
	}
	slog.InfoContext(ctx, "data source emptied", "account_id", job.AccountID, "data_source_uuid", ds.UUID,
		"keep_customers", job.KeepCustomers, "customers", emptied.customers, "imports", emptied.imports,
		"items", emptied.items)
	return nil
}

// emptied counts what emptySource went through (in its last step).
type emptied struct{ customers, imports, items int }

// Phases of emptySource.
const (
	phaseCustomers = iota
	phaseImports
	phasePartitions
)

// purgePosition is where a purge or an emptying resumes: its phase, and within it the
// customers listing's page (an emptying that keeps them; a purge's customers leave the
// listing, so it reads from the start), the next import or the next partition.
type purgePosition struct {
	Phase     int             `json:"phase,omitempty"`
	Customers store.PageToken `json:"customers,omitempty"`
	Import    int             `json:"import,omitempty"`
	Partition int             `json:"partition,omitempty"`
}

// stepBudget tells a step whether to start another piece of work: always its first
// (the worker only starts the job while it has time), then while the invocation has
// time for one (sqsworker.MayStart). So every step moves the job on.
type stepBudget struct {
	ctx     context.Context
	started bool
}

func (b *stepBudget) more() bool {
	if !b.started {
		b.started = true
		return true
	}
	return sqsworker.MayStart(b.ctx)
}

// moreSteps is the error of a step out of time; the job continues from resume.
type moreSteps struct{ resume string }

func (m *moreSteps) Error() string { return "workers: the job continues in another step" }

func stopAt(pos purgePosition) error {
	b, err := json.Marshal(pos)
	if err != nil {
		return err
	}
	return &moreSteps{resume: string(b)}
}

// emptySource deletes the records the customers of ds have from it and asks for their
// recomputation; then, unless keepCustomers, the customers that have no other source
// (the others lose this one); the status items of its imports; and the items of its
// partitions: plans, imports, and the external-id reservations (but the customers',
// when they stay). reason is the nonce of the recomputations it asks for. It starts
// at resume (a purgePosition, "" for the start) and, out of time
// (sqsworker.MayStart), stops with a moreSteps error naming where it got to; every
// piece of work is idempotent, so a step repeated does nothing more.
func emptySource(ctx context.Context, d *Deps, ds model.DataSource, keepCustomers bool, reason, resume string) (emptied, error) {
	var out emptied
	var pos purgePosition
	if resume != "" {
		if err := json.Unmarshal([]byte(resume), &pos); err != nil {
			return out, fmt.Errorf("workers: bad purge position: %w", err)
		}
	}
	var err error
	budget := &stepBudget{ctx: ctx}
	if pos.Phase == phaseCustomers {
		if keepCustomers {
			out.customers, err = purgeCustomerRecords(ctx, d, budget, ds.AccountID, ds.UUID, reason, pos.Customers)
		} else {
			out.customers, err = purgeCustomers(ctx, d, budget, ds.AccountID, ds.UUID, reason)
		}
		if err != nil {
			return out, err
		}
		pos = purgePosition{Phase: phaseImports}
	}
	if pos.Phase == phaseImports {
		// The imports' locators go with the source's partition, in the last phase: until
		// then the list is the same at every step.
		imports, err := d.Store.ImportIDs(ctx, ds.AccountID, ds.UUID)
		if err != nil {
			return out, err
		}
		out.imports = len(imports)
		for i := pos.Import; i < len(imports); i++ {
			if !budget.more() {
				return out, stopAt(purgePosition{Phase: phaseImports, Import: i})
			}
			if _, err := deletePartitions(ctx, d, keys.ImportCustomersPartitions(ds.AccountID, imports[i])); err != nil {
				return out, err
			}
		}
	}
	keep := ""
	if keepCustomers {
		keep = keys.CustomerExternalIDPrefix
	}
	pks := keys.DataSourcePartitions(ds.AccountID, ds.UUID)
	for i := pos.Partition; i < len(pks); i++ {
		n, done, err := d.Store.DeletePartitionWhile(ctx, pks[i], keep, budget.more)
		out.items += n
		if err != nil {
			return out, err
		}
		if !done {
			return out, stopAt(purgePosition{Phase: phasePartitions, Partition: i})
		}
	}
	return out, nil
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

// purgeCustomers takes the data source away from each of its customers, one at a time
// while the step's budget lasts (a purged customer leaves the listing: the next step
// reads it from the start again).
func purgeCustomers(ctx context.Context, d *Deps, budget *stepBudget, accountID, dsUUID, reason string) (int, error) {
	filter := store.CustomerFilter{DataSourceUUID: dsUUID}
	count := 0
	for {
		// A purged customer leaves the listing, so always read from the start.
		page, err := d.Store.ListCustomers(ctx, accountID, filter, 100, nil)
		if err != nil {
			return count, err
		}
		for _, c := range page.Items {
			if !budget.more() {
				return count, stopAt(purgePosition{Phase: phaseCustomers})
			}
			if err := purgeCustomer(ctx, d, c, dsUUID, reason); err != nil {
				return count, err
			}
			count++
		}
		if !page.HasMore {
			return count, nil
		}
	}
}

// purgeCustomerRecords removes the records each customer of the data source has from
// it and asks for its recomputation, from the listing's page next on; the customers
// stay, with the source.
func purgeCustomerRecords(ctx context.Context, d *Deps, budget *stepBudget, accountID, dsUUID, reason string, next store.PageToken) (int, error) {
	filter := store.CustomerFilter{DataSourceUUID: dsUUID}
	count := 0
	for {
		// A page (of 100 customers, two requests each) is the piece of work: a step
		// stops only between pages, where the listing's token says where to resume.
		if !budget.more() {
			return count, stopAt(purgePosition{Phase: phaseCustomers, Customers: next})
		}
		page, err := d.Store.ListCustomers(ctx, accountID, filter, 100, next)
		if err != nil {
			return count, err
		}
		for _, c := range page.Items {
			if err := d.Store.DeleteCustomerSourceBilling(ctx, accountID, c.UUID, dsUUID); err != nil {
				return count, err
			}
			if err := d.Recomputes.Send(ctx, jobs.Recompute(accountID, c.UUID, reason)); err != nil {
				return count, err
			}
			count++
		}
		if !page.HasMore {
			return count, nil
		}
		next = page.Next
	}
}

// PurgeCustomerSource removes what a customer has from a data source as the data
// source's purge does (purgeCustomer): the Stripe source's "delete" setting for a
// customer deleted in Stripe.
func (d *Deps) PurgeCustomerSource(ctx context.Context, c model.Customer, dsUUID, reason string) error {
	return purgeCustomer(ctx, d, c, dsUUID, reason)
}

// purgeCustomer removes the customer's records of the data source, asks for its
// recomputation, then deletes the customer if it had no other source, or else drops
// the source (and its external ids there) from it. The customer leaves the purge's
// listing only at that last step, so a redelivery after a failure in between finds it
// again; the recomputation is asked for before, and sees the records already gone
// (or, once the customer is deleted, removes it from the account's series).
func purgeCustomer(ctx context.Context, d *Deps, c model.Customer, dsUUID, reason string) error {
	if err := d.Store.DeleteCustomerSourceBilling(ctx, c.AccountID, c.UUID, dsUUID); err != nil {
		return err
	}
	if err := d.Recomputes.Send(ctx, jobs.Recompute(c.AccountID, c.UUID, reason)); err != nil {
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
