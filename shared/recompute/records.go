package recompute

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// StoreRecords reads a customer's records as the import pipeline stores them: the
// customer's billing index (one read), then its invoices, subscriptions and
// subscription events by id, at once (batch reads of 100). Reads grow linearly with
// the number of invoices.
type StoreRecords struct{ Store RecordsStorage }

// RecordsStorage is what StoreRecords reads: a customer's billing index and the
// records it lists, with the plans its subscription events name.
type RecordsStorage interface {
	store.BillingIndexes
	store.Invoices
	store.Subscriptions
	eventStorage
}

// eventStorage is what reading a customer's subscription events needs.
type eventStorage interface {
	store.SubscriptionEvents
	store.Plans
}

// CustomerRecords implements Source.
func (sr StoreRecords) CustomerRecords(ctx context.Context, accountID, customerUUID string) (Records, error) {
	idx, err := sr.Store.GetBillingIndex(ctx, accountID, customerUUID)
	if err != nil {
		return Records{}, err
	}
	var recs Records
	var invs map[string]model.Invoice
	var subs map[string]model.Subscription
	var invErr, subErr, evErr error
	var wg sync.WaitGroup
	wg.Go(func() { invs, invErr = sr.Store.GetInvoices(ctx, accountID, sortedKeys(idx.Invoices)) })
	wg.Go(func() { subs, subErr = sr.Store.GetSubscriptions(ctx, accountID, sortedKeys(idx.Subscriptions)) })
	wg.Go(func() {
		ids := idx.EventIDs()
		slices.Sort(ids)
		recs.Events, evErr = customerEvents(ctx, sr.Store, accountID, customerUUID, ids)
	})
	wg.Wait()
	if err := errors.Join(invErr, subErr, evErr); err != nil {
		return Records{}, err
	}
	for _, id := range sortedKeys(idx.Invoices) {
		if inv, ok := invs[id]; ok && inv.CustomerUUID == customerUUID {
			recs.Invoices = append(recs.Invoices, engineInvoice(inv))
		}
	}
	for _, id := range sortedKeys(idx.Subscriptions) {
		if sub, ok := subs[id]; ok {
			if h, ok := cancellationHistory(sub, invs); ok {
				recs.CancellationHistory = append(recs.CancellationHistory, h)
			}
		}
	}
	return recs, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func engineInvoice(inv model.Invoice) engine.Invoice {
	out := engine.Invoice{UUID: inv.UUID, ExternalID: inv.ExternalID, DataSourceUUID: inv.DataSourceUUID,
		Date: inv.Date, DueDate: deref(inv.DueDate), Currency: inv.Currency, Status: inv.Status,
		CollectionMethod: inv.CollectionMethod, Disabled: inv.Disabled}
	for _, li := range inv.LineItems {
		out.LineItems = append(out.LineItems, engine.LineItem{UUID: li.UUID, ExternalID: li.ExternalID,
			Type: li.Type, SubscriptionUUID: li.SubscriptionUUID, SubscriptionExternalID: li.SubscriptionExternalID,
			SubscriptionSetExternalID: li.SubscriptionSetExternalID, PlanUUID: li.PlanUUID,
			ServicePeriodStart: deref(li.ServicePeriodStart), ServicePeriodEnd: deref(li.ServicePeriodEnd),
			AmountInCents: li.AmountInCents, Quantity: li.Quantity, Prorated: li.Prorated,
			ProrationType: li.ProrationType, DiscountAmountInCents: li.DiscountAmountInCents,
			TaxAmountInCents: li.TaxAmountInCents, TransactionFeesInCents: li.TransactionFeesInCents,
			EventOrder: int(derefInt(li.EventOrder)), CancelledAt: deref(li.CancelledAt), Disabled: li.Disabled})
	}
	for _, t := range inv.Transactions {
		out.Transactions = append(out.Transactions, engine.Transaction{UUID: t.UUID, Type: t.Type,
			Result: t.Result, Date: t.Date, AmountInCents: t.AmountInCents, Disabled: t.Disabled})
	}
	return out
}

// cancellationHistory passes a subscription's stored cancellation dates to the engine
// only when they differ from what its line items say (cancelled_at): then they were set
// through PATCH /v1/import/subscriptions, which replaces the history. Otherwise the
// engine derives the history itself, also from subscription_cancelled events.
func cancellationHistory(sub model.Subscription, invs map[string]model.Invoice) (engine.CancellationHistory, bool) {
	var fromItems []time.Time
	for _, inv := range invs {
		for _, li := range inv.LineItems {
			if li.SubscriptionUUID == sub.UUID && li.CancelledAt != nil && !slices.ContainsFunc(fromItems, li.CancelledAt.Equal) {
				fromItems = append(fromItems, *li.CancelledAt)
			}
		}
	}
	stored := slices.Clone(sub.CancellationDates)
	byTime := func(a, b time.Time) int { return a.Compare(b) }
	slices.SortFunc(fromItems, byTime)
	slices.SortFunc(stored, byTime)
	if slices.EqualFunc(fromItems, stored, time.Time.Equal) {
		return engine.CancellationHistory{}, false
	}
	return engine.CancellationHistory{DataSourceUUID: sub.DataSourceUUID,
		SubscriptionExternalID: sub.ExternalID, Dates: stored}, true
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func derefInt(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}
