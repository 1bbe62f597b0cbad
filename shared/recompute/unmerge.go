package recompute

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// Unmerges carries out every unmerge pending out of one customer (the mirror of
// Merges), then recomputes it and the customers the unmerges made. Each step is
// idempotent and the request is deleted last, so a redelivery completes an unmerge
// that failed half-way.
func (r *Recomputer) Unmerges(ctx context.Context, accountID, customerUUID string) error {
	return carryOut(ctx, r, accountID, customerUUID, r.store.PendingUnmerges, func(u store.UnmergeRequest) error {
		if err := r.unmerge(ctx, u); err != nil {
			return fmt.Errorf("unmerge %s/%s out of %s: %w", u.DataSourceUUID, u.ExternalID, u.CustomerUUID, err)
		}
		if _, err := r.Customer(ctx, accountID, u.NewCustomerUUID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return r.store.DeleteUnmergeRequest(ctx, u)
	})
}

// unmerge makes the new customer of the data source customer (ds, external id), hands
// it that pair's invoices, subscriptions and subscription events, and the CRM records
// the request moves, then gives it the pair's external id reservation and drops the
// pair from the old customer. Contacts, tags and custom attributes stay.
func (r *Recomputer) unmerge(ctx context.Context, u store.UnmergeRequest) error {
	old, err := r.store.GetCustomer(ctx, u.AccountID, u.CustomerUUID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted meanwhile: nothing left to split
	}
	if err != nil {
		return err
	}
	if err := r.splitCustomer(ctx, u, old); err != nil {
		return err
	}
	if err := r.moveSourceBilling(ctx, u); err != nil {
		return err
	}
	if err := r.moveCRMRecords(ctx, u.AccountID, u.CustomerUUID, u.NewCustomerUUID, u.Move); err != nil {
		return err
	}
	if err := r.store.ReassignCustomerExternalID(ctx, u.AccountID, u.DataSourceUUID, u.ExternalID, u.CustomerUUID, u.NewCustomerUUID); err != nil {
		return err
	}
	saved := false
	err = retryConflicts(func() error {
		cur, err := r.store.GetCustomer(ctx, u.AccountID, u.CustomerUUID)
		if err != nil || !cur.HasSource(u.DataSourceUUID, u.ExternalID) {
			return err
		}
		err = r.store.SaveCustomer(ctx, cur, cur.WithoutSource(u.DataSourceUUID, u.ExternalID))
		saved = err == nil
		return err
	})
	if saved {
		slog.InfoContext(ctx, "customer unmerged", "account_id", u.AccountID, "from", u.CustomerUUID,
			"new", u.NewCustomerUUID, "data_source_uuid", u.DataSourceUUID)
	}
	return err
}

// splitCustomer stores the new customer, unless a previous attempt did.
func (r *Recomputer) splitCustomer(ctx context.Context, u store.UnmergeRequest, old model.Customer) error {
	if _, err := r.store.GetCustomer(ctx, u.AccountID, u.NewCustomerUUID); !errors.Is(err, store.ErrNotFound) {
		return err
	}
	system := ""
	if ds, err := r.store.GetDataSource(ctx, u.AccountID, u.DataSourceUUID); err == nil {
		system = ds.System
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	id, err := r.store.NextCustomerID(ctx, u.AccountID)
	if err != nil {
		return err
	}
	return r.store.CreateSplitCustomer(ctx, old.SplitFrom(u.NewCustomerUUID, id, u.DataSourceUUID, u.ExternalID, system, r.now()))
}

// moveSourceBilling hands the data source customer's records (invoices, the
// subscriptions their line items bill, subscription events) from the old customer to
// the new one: each record changes owner, the new customer's billing index gains them
// (with references on their plans), then the old index drops them (and the plans no
// record left uses). A record already the new customer's (an earlier attempt) is
// picked again while the old index lists it.
func (r *Recomputer) moveSourceBilling(ctx context.Context, u store.UnmergeRequest) error {
	return retryConflicts(func() error { return r.moveSourceBillingOnce(ctx, u) })
}

func (r *Recomputer) moveSourceBillingOnce(ctx context.Context, u store.UnmergeRequest) error {
	oldIdx, err := r.store.GetBillingIndex(ctx, u.AccountID, u.CustomerUUID)
	if err != nil || oldIdx.Version == 0 {
		return err
	}
	ours := func(owner, ds, ext string) bool {
		return (owner == u.CustomerUUID || owner == u.NewCustomerUUID) && ds == u.DataSourceUUID && ext == u.ExternalID
	}
	invoices, err := r.store.GetInvoices(ctx, u.AccountID, oldIdx.SortedInvoiceUUIDs())
	if err != nil {
		return err
	}
	moving := store.BillingIndex{Invoices: map[string]int64{}, Subscriptions: map[string]int64{}, Plans: map[string]string{},
		Events: map[string]int64{}}
	stayingPlans := map[string]bool{}
	for _, inv := range invoices {
		if !ours(inv.CustomerUUID, inv.DataSourceUUID, inv.CustomerExternalID) {
			for _, li := range inv.LineItems {
				stayingPlans[li.PlanUUID] = true
			}
			continue
		}
		moving.Invoices[inv.UUID] = oldIdx.Invoices[inv.UUID]
		for _, li := range inv.LineItems {
			if created, ok := oldIdx.Subscriptions[li.SubscriptionUUID]; ok {
				moving.Subscriptions[li.SubscriptionUUID] = created
			}
			if ds, ok := oldIdx.Plans[li.PlanUUID]; ok {
				moving.Plans[li.PlanUUID] = ds
			}
		}
	}
	events, err := r.store.GetSubscriptionEvents(ctx, u.AccountID, oldIdx.EventIDs())
	if err != nil {
		return err
	}
	for id, ev := range events {
		if ours(ev.CustomerUUID, ev.DataSourceUUID, ev.CustomerExternalID) {
			k := strconv.FormatInt(id, 10)
			moving.Events[k] = oldIdx.Events[k]
		}
	}
	if len(moving.Invoices)+len(moving.Events) == 0 {
		return nil
	}
	if err := r.reassignRecords(ctx, u.AccountID, u.CustomerUUID, u.NewCustomerUUID, moving); err != nil {
		return err
	}
	newIdx, err := r.store.GetBillingIndex(ctx, u.AccountID, u.NewCustomerUUID)
	if err != nil {
		return err
	}
	gained := newIdx.Clone()
	gained.AccountID, gained.CustomerUUID = u.AccountID, u.NewCustomerUUID
	for _, m := range []struct{ into, from map[string]int64 }{{gained.Invoices, moving.Invoices},
		{gained.Subscriptions, moving.Subscriptions}, {gained.Events, moving.Events}} {
		maps.Copy(m.into, m.from)
	}
	maps.Copy(gained.Plans, moving.Plans)
	if err := r.store.SaveBillingIndex(ctx, newIdx, gained); err != nil {
		return err
	}
	left := oldIdx.Clone()
	for k := range moving.Invoices {
		delete(left.Invoices, k)
	}
	for k := range moving.Subscriptions {
		delete(left.Subscriptions, k)
	}
	for k := range moving.Events {
		delete(left.Events, k)
	}
	for plan := range moving.Plans {
		if !stayingPlans[plan] {
			delete(left.Plans, plan)
		}
	}
	return r.store.SaveBillingIndex(ctx, oldIdx, left)
}

// moveCRMRecords re-homes a customer's CRM records of the kinds named (tasks,
// opportunities, notes: a merge moves all three, an unmerge those it is asked to).
func (r *Recomputer) moveCRMRecords(ctx context.Context, accountID, fromUUID, toUUID string, kinds []string) error {
	s := r.store
	for kind, move := range map[string]func() error{
		"notes": func() error { return moveEach(ctx, accountID, fromUUID, toUUID, s.CustomerNotes, s.MoveNote) },
		"opportunities": func() error {
			return moveEach(ctx, accountID, fromUUID, toUUID, s.Opportunities().OfCustomer, s.Opportunities().Move)
		},
		"tasks": func() error { return moveEach(ctx, accountID, fromUUID, toUUID, s.Tasks().OfCustomer, s.Tasks().Move) },
	} {
		if slices.Contains(kinds, kind) {
			if err := move(); err != nil {
				return err
			}
		}
	}
	return nil
}

// moveEach moves every record a customer has (list) to another customer (move).
func moveEach[T any](ctx context.Context, accountID, fromUUID, toUUID string,
	list func(context.Context, string, string) ([]T, error), move func(context.Context, T, string) error) error {
	records, err := list(ctx, accountID, fromUUID)
	if err != nil {
		return err
	}
	for _, rec := range records {
		if err := move(ctx, rec, toUUID); err != nil {
			return err
		}
	}
	return nil
}
