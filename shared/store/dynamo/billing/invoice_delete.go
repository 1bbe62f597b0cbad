package billing

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
	return s.DeleteInvoices(ctx, inv.AccountID, inv.CustomerUUID, []model.Invoice{inv}, now)
}

// DeleteInvoices removes several invoices of one customer as DeleteInvoice does, with
// one revision of the customer's index for all of them.
func (s *Store) DeleteInvoices(ctx context.Context, accountID, customerUUID string, invs []model.Invoice, now time.Time) error {
	var dropped []string
	var lines []model.LineItem
	for _, inv := range invs {
		if err := s.DeleteInvoiceItem(ctx, inv); err != nil {
			return err
		}
		dropped = append(dropped, inv.UUID)
		lines = append(lines, inv.LineItems...)
	}
	return s.ReviseBilling(ctx, accountID, customerUUID, dropped, lines, now)
}

// ReviseBilling brings a customer's index and subscriptions in line with its invoices
// after invoices (dropped) or line items (lines: those removed or changed) went: the
// subscriptions of those lines that no remaining line item uses go, the others take
// their plan and latest period from the remaining ones, and the index drops the
// invoices, those subscriptions and the plans nothing uses any more, releasing their
// references.
func (s *Store) ReviseBilling(ctx context.Context, accountID, customerUUID string, dropped []string, lines []model.LineItem, now time.Time) error {
	for attempt := 0; attempt < 5; attempt++ {
		idx, err := s.GetBillingIndex(ctx, accountID, customerUUID)
		if err != nil {
			return err
		}
		next := idx.Clone()
		for _, u := range dropped {
			delete(next.Invoices, u)
		}
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
		if err := s.reviseSubscriptions(ctx, accountID, customerUUID, lines, subLines, &next, now); err != nil {
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
	return errors.New("revise billing: the customer's index kept changing")
}

// reviseSubscriptions removes the subscriptions of the removed lines that no remaining
// line item uses and re-derives the others: plan and latest period from the remaining
// lines, and the cancellation dates too unless they were set through the
// subscriptions API (dates that are not exactly those of the line items).
func (s *Store) reviseSubscriptions(ctx context.Context, accountID, customerUUID string, removed []model.LineItem,
	subLines map[string][]model.LineItem, next *store.BillingIndex, now time.Time) error {
	var uuids []string
	for _, li := range removed {
		if li.SubscriptionUUID != "" && !slices.Contains(uuids, li.SubscriptionUUID) {
			uuids = append(uuids, li.SubscriptionUUID)
		}
	}
	subs, err := s.GetSubscriptions(ctx, accountID, uuids)
	if err != nil {
		return err
	}
	for _, u := range uuids {
		sub, ok := subs[u]
		if !ok || sub.CustomerUUID != customerUUID {
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
		derived := slices.EqualFunc(sub.CancellationDates, cancellationDates(append(slices.Clone(lines), removedOf(removed, u)...)), time.Time.Equal)
		if derived {
			revised.CancellationDates = nil
		}
		for _, li := range lines {
			revised.ApplyLineItem(li)
		}
		if revised.PlanUUID != sub.PlanUUID || !revised.LatestStart.Equal(sub.LatestStart) ||
			!slices.EqualFunc(revised.CancellationDates, sub.CancellationDates, time.Time.Equal) {
			revised.UpdatedAt = now
			if errs := s.PutSubscriptions(ctx, []model.Subscription{revised}); errs[0] != nil {
				return errs[0]
			}
		}
	}
	return nil
}

// removedOf are the removed lines of one subscription.
func removedOf(removed []model.LineItem, subUUID string) []model.LineItem {
	var out []model.LineItem
	for _, li := range removed {
		if li.SubscriptionUUID == subUUID {
			out = append(out, li)
		}
	}
	return out
}

// cancellationDates are the distinct cancelled_at of lines, in order (what folding
// them into a subscription gives).
func cancellationDates(lines []model.LineItem) []time.Time {
	var sub model.Subscription
	for _, li := range lines {
		if li.CancelledAt != nil {
			sub.ApplyLineItem(model.LineItem{LineItemFields: model.LineItemFields{CancelledAt: li.CancelledAt}})
		}
	}
	return sub.CancellationDates
}
