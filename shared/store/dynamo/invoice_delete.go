package dynamo

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// OwnedInvoices reads the invoices of the index that (still) belong to its customer.
func (s *Store) OwnedInvoices(ctx context.Context, idx store.BillingIndex, uuids []string) ([]model.Invoice, error) {
	found, err := s.GetInvoices(ctx, idx.AccountID, uuids)
	if err != nil {
		return nil, err
	}
	out := make([]model.Invoice, 0, len(uuids))
	for _, u := range uuids {
		if inv, ok := found[u]; ok && inv.CustomerUUID == idx.CustomerUUID {
			out = append(out, inv)
		}
	}
	return out, nil
}

// DeleteInvoice removes an invoice with its line items and transactions. A
// subscription that no other invoice of the customer uses goes with it (one still
// used takes its plan from the remaining line items), and the index drops the
// invoice, those subscriptions and the plans nothing uses any more, releasing their
// references. The invoice goes first: a failure after it leaves an index entry that
// listings skip and references that err on the safe side, never a missing one.
func (s *Store) DeleteInvoice(ctx context.Context, inv model.Invoice, now time.Time) error {
	if err := s.DeleteInvoiceItem(ctx, inv); err != nil {
		return err
	}
	for attempt := 0; attempt < 5; attempt++ {
		idx, err := s.GetBillingIndex(ctx, inv.AccountID, inv.CustomerUUID)
		if err != nil {
			return err
		}
		next := idx.Clone()
		delete(next.Invoices, inv.UUID)
		rest, err := s.OwnedInvoices(ctx, next, next.SortedInvoiceUUIDs())
		if err != nil {
			return err
		}
		usedPlans := map[string]bool{}
		subLines := map[string][]model.LineItem{}
		for _, other := range rest {
			for _, li := range other.LineItems {
				if li.PlanUUID != "" {
					usedPlans[li.PlanUUID] = true
				}
				if li.SubscriptionUUID != "" && li.PlanUUID != "" {
					subLines[li.SubscriptionUUID] = append(subLines[li.SubscriptionUUID], li)
				}
			}
		}
		if err := s.reviseSubscriptions(ctx, inv, subLines, &next, now); err != nil {
			return err
		}
		for plan := range next.Plans {
			if !usedPlans[plan] {
				delete(next.Plans, plan)
			}
		}
		err = s.SaveBillingIndex(ctx, idx, next)
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return errors.New("delete invoice: the customer's index kept changing")
}

// reviseSubscriptions removes the deleted invoice's subscriptions that no remaining
// line item uses and re-derives the plan of the others.
func (s *Store) reviseSubscriptions(ctx context.Context, inv model.Invoice, subLines map[string][]model.LineItem, next *store.BillingIndex, now time.Time) error {
	var uuids []string
	for _, li := range inv.LineItems {
		if li.SubscriptionUUID != "" && !slices.Contains(uuids, li.SubscriptionUUID) {
			uuids = append(uuids, li.SubscriptionUUID)
		}
	}
	subs, err := s.GetSubscriptions(ctx, inv.AccountID, uuids)
	if err != nil {
		return err
	}
	for _, u := range uuids {
		sub, ok := subs[u]
		if !ok || sub.CustomerUUID != inv.CustomerUUID {
			continue
		}
		lines := subLines[u]
		if len(lines) == 0 {
			if err := s.DeleteSubscriptionItem(ctx, sub); err != nil {
				return err
			}
			delete(next.Subscriptions, u)
			continue
		}
		revised := sub
		revised.PlanUUID, revised.LatestStart = "", time.Time{}
		for _, li := range lines {
			revised.ApplyLineItem(li)
		}
		if revised.PlanUUID != sub.PlanUUID || !revised.LatestStart.Equal(sub.LatestStart) {
			revised.UpdatedAt = now
			if errs := s.PutSubscriptions(ctx, []model.Subscription{revised}); errs[0] != nil {
				return errs[0]
			}
		}
	}
	return nil
}
