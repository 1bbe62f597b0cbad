package recompute

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// MergedTag is added to the customer that absorbed another.
const MergedTag = "merged-customer"

// maxMergeAttempts bounds the retries of saves that race with other writers.
const maxMergeAttempts = 5

// Merges carries out every merge pending into one customer, then recomputes it. Each
// step is idempotent and the request is deleted last, so a redelivery completes a merge
// that failed half-way.
func (r *Recomputer) Merges(ctx context.Context, accountID, intoUUID string) error {
	return carryOut(ctx, r, accountID, intoUUID, r.store.PendingMerges, func(m store.MergeRequest) error {
		if err := r.merge(ctx, m); err != nil {
			return fmt.Errorf("merge %s into %s: %w", m.FromUUID, m.IntoUUID, err)
		}
		return r.store.DeleteMergeRequest(ctx, m)
	})
}

// carryOut applies the requests pending for a customer (merges, unmerges) one after
// the other, each deleting its request when done, then recomputes the customer.
func carryOut[T any](ctx context.Context, r *Recomputer, accountID, customerUUID string,
	pendingFor func(context.Context, string, string) ([]T, error), apply func(T) error) error {
	pending, err := pendingFor(ctx, accountID, customerUUID)
	if err != nil {
		return err
	}
	for _, p := range pending {
		if err := apply(p); err != nil {
			return err
		}
	}
	_, err = r.Customer(ctx, accountID, customerUUID)
	return err
}

func (r *Recomputer) merge(ctx context.Context, m store.MergeRequest) error {
	from, err := r.store.GetCustomer(ctx, m.AccountID, m.FromUUID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // already merged (or deleted): nothing left to move
	}
	if err != nil {
		return err
	}
	if _, err := r.store.GetCustomer(ctx, m.AccountID, m.IntoUUID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil // the target was deleted meanwhile: the merge no longer applies
		}
		return err
	}
	if err := r.moveBilling(ctx, m); err != nil {
		return err
	}
	if err := r.moveContactsAndNotes(ctx, m); err != nil {
		return err
	}
	into, err := r.absorbIdentity(ctx, m, from)
	if err != nil {
		return err
	}
	for i, ds := range from.DataSourceUUIDs {
		if i < len(from.ExternalIDs) {
			if err := r.store.ReassignCustomerExternalID(ctx, m.AccountID, ds, from.ExternalIDs[i], from.UUID, into.UUID); err != nil {
				return err
			}
		}
	}
	// The reservations are into's now: delete from's item (and what is left in its
	// partition) without them.
	gone := from
	gone.DataSourceUUIDs, gone.ExternalIDs = nil, nil
	if err := r.store.DeleteCustomer(ctx, gone); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err := r.series.Remove(ctx, m.AccountID, from.UUID); err != nil {
		return err
	}
	slog.InfoContext(ctx, "customers merged", "account_id", m.AccountID, "from", from.UUID, "into", into.UUID)
	return nil
}

// moveBilling hands from's invoices, subscriptions and events to into: each item changes owner,
// into's billing index gains them, then from's index is emptied (releasing its plan
// references, which into's index now holds).
func (r *Recomputer) moveBilling(ctx context.Context, m store.MergeRequest) error {
	fromIdx, err := r.store.GetBillingIndex(ctx, m.AccountID, m.FromUUID)
	if err != nil {
		return err
	}
	if err := r.reassignRecords(ctx, m.AccountID, m.FromUUID, m.IntoUUID, fromIdx); err != nil {
		return err
	}
	err = retryConflicts(func() error {
		old, err := r.store.GetBillingIndex(ctx, m.AccountID, m.IntoUUID)
		if err != nil {
			return err
		}
		next := old.Clone()
		maps.Copy(next.Invoices, fromIdx.Invoices)
		maps.Copy(next.Subscriptions, fromIdx.Subscriptions)
		maps.Copy(next.Plans, fromIdx.Plans)
		maps.Copy(next.Events, fromIdx.Events)
		if maps.Equal(next.Invoices, old.Invoices) && maps.Equal(next.Subscriptions, old.Subscriptions) &&
			maps.Equal(next.Plans, old.Plans) && maps.Equal(next.Events, old.Events) {
			return nil
		}
		return r.store.SaveBillingIndex(ctx, old, next)
	})
	if err != nil {
		return err
	}
	if fromIdx.Version == 0 {
		return nil
	}
	empty := fromIdx.Clone()
	clear(empty.Invoices)
	clear(empty.Subscriptions)
	clear(empty.Plans)
	clear(empty.Events)
	if err := r.store.SaveBillingIndex(ctx, fromIdx, empty); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

// moveContactsAndNotes re-homes from's contacts, notes, opportunities and tasks. A
// contact whose e-mail into already has is merged into that contact (e-mails stay
// unique per customer).
func (r *Recomputer) moveContactsAndNotes(ctx context.Context, m store.MergeRequest) error {
	into, err := r.store.GetCustomer(ctx, m.AccountID, m.IntoUUID)
	if err != nil {
		return err
	}
	contacts, err := r.store.CustomerContacts(ctx, m.AccountID, m.FromUUID)
	if err != nil {
		return err
	}
	for _, c := range contacts {
		err := r.store.MoveContact(ctx, c, into)
		if !errors.Is(err, store.ErrDuplicateEmail) {
			if err != nil && !errors.Is(err, store.ErrConflict) {
				return err
			}
			continue
		}
		mine, err := r.store.CustomerContacts(ctx, m.AccountID, m.IntoUUID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(mine, func(o model.Contact) bool { return equalFoldEmail(o.EmailValue(), c.EmailValue()) })
		if i < 0 {
			return fmt.Errorf("contact %s: e-mail taken but no contact of %s has it", c.UUID, into.UUID)
		}
		if err := r.store.MergeContacts(ctx, mine[i], mine[i], c); err != nil && !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return r.moveCRMRecords(ctx, m.AccountID, m.FromUUID, m.IntoUUID, model.UnmergeMovable)
}

// absorbIdentity adds from's external ids, data sources, systems and tags, and the
// merged-customer tag, to into.
func (r *Recomputer) absorbIdentity(ctx context.Context, m store.MergeRequest, from model.Customer) (model.Customer, error) {
	var next model.Customer
	err := retryConflicts(func() error {
		into, err := r.store.GetCustomer(ctx, m.AccountID, m.IntoUUID)
		if err != nil {
			return err
		}
		next = store.MergedCustomer(into, from, MergedTag)
		return r.store.SaveCustomer(ctx, into, next)
	})
	if err != nil {
		return model.Customer{}, err
	}
	return next, nil
}

// retryConflicts runs a read-modify-write until it does not lose a race with another
// writer (store.ErrConflict), at most maxMergeAttempts times.
func retryConflicts(attempt func() error) error {
	for i := 1; ; i++ {
		err := attempt()
		if err == nil || !errors.Is(err, store.ErrConflict) || i == maxMergeAttempts {
			return err
		}
	}
}

// reassignRecords gives the records an index lists (invoices, subscriptions,
// subscription events) from one customer to another, each item conditional on its
// owner.
func (r *Recomputer) reassignRecords(ctx context.Context, accountID, fromUUID, toUUID string, idx store.BillingIndex) error {
	for _, records := range []struct {
		ids  []string
		kind store.OwnedKind
	}{{sortedKeys(idx.Invoices), store.OwnedInvoice}, {sortedKeys(idx.Subscriptions), store.OwnedSubscription},
		{sortedKeys(idx.Events), store.OwnedSubscriptionEvent}} {
		for _, id := range records.ids {
			if err := r.store.ReassignOwner(ctx, accountID, records.kind, id, fromUUID, toUUID); err != nil {
				return err
			}
		}
	}
	return nil
}

func equalFoldEmail(a, b string) bool { return a != "" && strings.EqualFold(a, b) }
