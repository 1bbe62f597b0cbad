package billing

import (
	"context"
	"errors"
	"strconv"

	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// DeleteCustomerBilling removes the invoices, subscriptions and subscription events
// of a customer's billing index (they live in their own partitions), then empties
// the index, which releases its plan references.
func (s *Store) DeleteCustomerBilling(ctx context.Context, accountID, customerUUID string) error {
	return s.deleteBilling(ctx, accountID, customerUUID, "")
}

// DeleteCustomerSourceBilling removes what a customer has from one data source (a
// merged customer can have several): its invoices with their line items and
// transactions, its subscriptions and subscription events, their index entries and
// the index's plans of that source. The rest of the customer's records stay.
func (s *Store) DeleteCustomerSourceBilling(ctx context.Context, accountID, customerUUID, dsUUID string) error {
	return s.deleteBilling(ctx, accountID, customerUUID, dsUUID)
}

// deleteBilling removes the customer's records of data source dsUUID ("": of every
// source) and their index entries; entries of records the customer no longer owns go
// too. Only records the customer still owns are deleted. Records go before the index:
// a failure half-way leaves index entries that a repeated delete finds absent and
// skips.
func (s *Store) deleteBilling(ctx context.Context, accountID, customerUUID, dsUUID string) error {
	doomedSource := func(ds string) bool { return dsUUID == "" || ds == dsUUID }
	for attempt := 0; attempt < 5; attempt++ {
		idx, err := s.GetBillingIndex(ctx, accountID, customerUUID)
		if err != nil || idx.Version == 0 {
			return err
		}
		invs, err := s.OwnedInvoices(ctx, idx, idx.SortedInvoiceUUIDs())
		if err != nil {
			return err
		}
		subs, err := s.GetSubscriptions(ctx, accountID, mapKeys(idx.Subscriptions))
		if err != nil {
			return err
		}
		evs, err := s.GetSubscriptionEvents(ctx, accountID, idx.EventIDs())
		if err != nil {
			return err
		}
		// next keeps the entries of owned records of the other sources only.
		next := idx.Clone()
		clear(next.Invoices)
		clear(next.Subscriptions)
		clear(next.Plans)
		clear(next.Events)
		var doomed []func() error
		for _, inv := range invs {
			if doomedSource(inv.DataSourceUUID) {
				doomed = append(doomed, func() error { return s.DeleteInvoiceItem(ctx, inv) })
			} else {
				next.Invoices[inv.UUID] = idx.Invoices[inv.UUID]
			}
		}
		for u, sub := range subs {
			switch {
			case sub.CustomerUUID != customerUUID:
			case doomedSource(sub.DataSourceUUID):
				doomed = append(doomed, func() error { return s.DeleteSubscriptionItem(ctx, sub) })
			default:
				next.Subscriptions[u] = idx.Subscriptions[u]
			}
		}
		for _, ev := range evs {
			switch {
			case ev.CustomerUUID != customerUUID:
			case doomedSource(ev.DataSourceUUID):
				doomed = append(doomed, func() error { return s.DeleteSubscriptionEvent(ctx, ev) })
			default:
				id := strconv.FormatInt(ev.ID, 10)
				next.Events[id] = idx.Events[id]
			}
		}
		for plan, ds := range idx.Plans {
			if !doomedSource(ds) {
				next.Plans[plan] = ds
			}
		}
		errs := make([]error, len(doomed))
		parallel.For(len(doomed), table.WriteConcurrency, func(i int) { errs[i] = doomed[i]() })
		// ErrConflict: the item changed owner meanwhile (a merge); it is not ours to delete.
		for _, err := range errs {
			if err != nil && !errors.Is(err, store.ErrConflict) {
				return err
			}
		}
		err = s.SaveBillingIndex(ctx, idx, next)
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return errors.New("delete customer billing: the customer's index kept changing")
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
