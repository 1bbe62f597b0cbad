package recompute

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// AutoChurnTag is added to a customer when a delinquent subscription is auto-churned.
const AutoChurnTag = "auto-churned-delinquent-subscription"

// Recomputer recomputes the customers of the store, reading their records as the
// import pipeline stores them, and keeps the account series.
type Recomputer struct {
	store   Storage
	records Source
	series  Series
	now     func() time.Time
}

// Storage is the part of the store a recomputation reads and writes.
type Storage interface {
	store.Accounts
	store.Customers
	store.Contacts
	store.Notes
	store.Merges
	store.Unmerges
	store.Opportunities
	store.Tasks
	store.DataSources
	store.Connections
	store.Metrics
	store.FXRates
	RecordsStorage
}

// Series keeps the account series and activity log (accountseries.Series, which records
// what it applied per customer and is idempotent on its own).
type Series interface {
	Apply(ctx context.Context, accountID string, res *engine.Result, c accountseries.CustomerAttrs) error
	Remove(ctx context.Context, accountID, customerUUID string) error
}

// New returns the recomputer of the customers in st, keeping series, at the clock now.
func New(st Storage, series Series, now func() time.Time) *Recomputer {
	return &Recomputer{store: st, records: StoreRecords{Store: st}, series: series, now: now}
}

// Outcome tells what a recomputation did.
type Outcome struct {
	Changed bool      // a new result was committed
	Status  string    // customer status after it
	MRR     int64     // customer MRR after it
	WakeAt  time.Time // next scheduled recomputation; zero if none
}

// Customer recomputes one customer at the recomputer's clock. It is safe to repeat and to redeliver:
// every write is keyed by the data, the account series change is idempotent, and the
// new state is committed last, conditionally on the state it started from.
func (r *Recomputer) Customer(ctx context.Context, accountID, customerUUID string) (Outcome, error) {
	acc, err := r.store.GetAccount(ctx, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return Outcome{}, nil // the account is gone: nothing to keep up to date
	}
	if err != nil {
		return Outcome{}, err
	}
	cust, err := r.store.GetCustomer(ctx, accountID, customerUUID)
	if errors.Is(err, store.ErrNotFound) {
		return Outcome{}, r.forget(ctx, accountID, customerUUID)
	}
	if err != nil {
		return Outcome{}, err
	}
	res, plans, err := r.compute(ctx, acc, customerUUID)
	if err != nil {
		return Outcome{}, err
	}
	next := newSnapshot(customerView{accountID: accountID, customerUUID: customerUUID, currency: acc.Currency,
		plans: plans}, cust.Country, res)
	hash, data, err := next.encode()
	if err != nil {
		return Outcome{}, err
	}
	state, err := r.store.GetMetricsState(ctx, accountID, customerUUID)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Status: customerStatus(cust.Status, res.Status), MRR: res.MRR, WakeAt: res.NextChangeAt}
	// The series and activity log first (they skip unchanged input with one read, and
	// also follow customer renames that do not change this result), then this state.
	if err := r.series.Apply(ctx, accountID, &res, seriesAttrs(cust, plans)); err != nil {
		return Outcome{}, fmt.Errorf("account series: %w", err)
	}
	if state.Hash == hash {
		// Same result as last committed: only repair the customer item if someone
		// overwrote its figures (a full save racing with the last recomputation).
		return out, r.syncCustomer(ctx, cust, next, nil)
	}
	prev, err := decodeSnapshot(accountID, state.Data)
	if err != nil {
		return Outcome{}, fmt.Errorf("metrics state of %s: %w", customerUUID, err)
	}
	if err := r.store.WriteMetricsView(ctx, viewChange(prev, &next)); err != nil {
		return Outcome{}, err
	}
	if err := r.syncCustomer(ctx, cust, next, prev); err != nil {
		return Outcome{}, err
	}
	if err := r.syncWake(ctx, accountID, customerUUID, prev, next); err != nil {
		return Outcome{}, err
	}
	if err := r.store.PutMetricsState(ctx, accountID, customerUUID, state, store.MetricsState{Hash: hash, Data: data}); err != nil {
		return Outcome{}, fmt.Errorf("commit metrics state: %w", err)
	}
	out.Changed = true
	slog.InfoContext(ctx, "customer recomputed", "account_id", accountID, "customer_uuid", customerUUID,
		"status", out.Status, "mrr", res.MRR, "movements", len(res.Movements), "invalid_invoices", len(res.InvalidInvoices))
	return out, nil
}

// compute runs the engine on the customer's stored records, writing nothing.
func (r *Recomputer) compute(ctx context.Context, acc model.Account, customerUUID string) (engine.Result, map[string]engine.Plan, error) {
	recs, err := r.records.CustomerRecords(ctx, acc.ID, customerUUID)
	if err != nil {
		return engine.Result{}, nil, fmt.Errorf("records of %s: %w", customerUUID, err)
	}
	in, plans, err := r.buildInput(ctx, acc, customerUUID, recs)
	if err != nil {
		return engine.Result{}, nil, err
	}
	return engine.Compute(in), plans, nil
}

// buildInput loads everything the engine needs besides the records.
func (r *Recomputer) buildInput(ctx context.Context, acc model.Account, customerUUID string, recs Records) (engine.Input, map[string]engine.Plan, error) {
	plans, err := loadPlans(ctx, r.store, acc.ID, recs)
	if err != nil {
		return engine.Input{}, nil, err
	}
	rates, err := loadRates(ctx, r.store, acc.ID, acc.Currency, recs)
	if err != nil {
		return engine.Input{}, nil, err
	}
	conns, err := r.store.CustomerConnections(ctx, acc.ID, customerUUID)
	if err != nil {
		return engine.Input{}, nil, err
	}
	byUUID := make(map[string]engine.Plan, len(plans))
	for _, p := range plans {
		byUUID[p.UUID] = p
	}
	for i, ev := range recs.Events {
		if _, ok := byUUID[ev.PlanUUID]; !ok {
			recs.Events[i].PlanUUID = "" // its plan is gone: as for a plan never known
		}
	}
	return engine.Input{Now: r.now(), Settings: settings(acc), Plans: plans, Invoices: recs.Invoices,
		Events: recs.Events, CancellationHistory: recs.CancellationHistory, Connections: connections(conns),
		Rates: rates}, byUUID, nil
}

// customerStatus keeps a lead's own lead status (New, Working, ...), as the engine only
// knows "never paid".
func customerStatus(stored, computed string) string {
	if computed != engine.StatusLead {
		return computed
	}
	if model.IsLead(stored) {
		return stored
	}
	return model.StatusNewLead
}

// maxCustomerAttempts bounds the retries when a customer save races with ours.
const maxCustomerAttempts = 5

// syncCustomer writes the customer's metrics attributes when they differ from the
// snapshot, and the auto-churn tag when the snapshot newly auto-churned.
func (r *Recomputer) syncCustomer(ctx context.Context, cust model.Customer, next snapshot, prev *snapshot) error {
	tagNow := next.AutoChurned && (prev == nil || !prev.AutoChurned)
	for attempt := 0; ; attempt++ {
		m := store.CustomerMetrics{MRR: next.MRR, ARR: next.ARR, Status: customerStatus(cust.Status, next.Status),
			BillingCurrencies: next.Currencies, ActiveQuantity: next.activeQuantity()}
		if !next.CustomerSince.IsZero() {
			since := next.CustomerSince.UTC()
			m.CustomerSince = &since
		}
		if tagNow && !slices.Contains(cust.Tags, AutoChurnTag) {
			m.AddTags = []string{AutoChurnTag}
		}
		if sameMetrics(cust, m) {
			return nil
		}
		err := r.store.UpdateCustomerMetrics(ctx, cust.AccountID, cust.UUID, cust.Version, m)
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted meanwhile; its deletion enqueues the clean-up
		}
		if !errors.Is(err, store.ErrConflict) || attempt+1 == maxCustomerAttempts {
			return err
		}
		if cust, err = r.store.GetCustomer(ctx, cust.AccountID, cust.UUID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return err
		}
	}
}

func sameMetrics(c model.Customer, m store.CustomerMetrics) bool {
	sameSince := (c.CustomerSince == nil) == (m.CustomerSince == nil) &&
		(c.CustomerSince == nil || c.CustomerSince.Equal(*m.CustomerSince))
	return c.MRR == m.MRR && c.ARR == m.ARR && c.Status == m.Status && sameSince && len(m.AddTags) == 0 &&
		slices.Equal(c.BillingCurrencies, m.BillingCurrencies) && c.ActiveQuantity == m.ActiveQuantity
}

// syncWake keeps the customer's scheduled recomputation at NextChangeAt.
func (r *Recomputer) syncWake(ctx context.Context, accountID, customerUUID string, prev *snapshot, next snapshot) error {
	if prev != nil && prev.NextChangeAt.Equal(next.NextChangeAt) {
		return nil
	}
	if next.NextChangeAt.IsZero() {
		if prev == nil {
			return nil
		}
		return r.store.DeleteMetricsWake(ctx, accountID, customerUUID)
	}
	return r.store.PutMetricsWake(ctx, store.MetricsWake{AccountID: accountID, CustomerUUID: customerUUID,
		Due: next.NextChangeAt.UTC()})
}

// forget removes a deleted customer's contribution from the account series. Its own
// items went with its partition.
func (r *Recomputer) forget(ctx context.Context, accountID, customerUUID string) error {
	// A wake-up left behind would be swept and re-sent every few minutes for a day.
	if err := r.store.DeleteMetricsWake(ctx, accountID, customerUUID); err != nil {
		return err
	}
	return r.series.Remove(ctx, accountID, customerUUID)
}

// seriesAttrs are the customer fields the account series and activities show.
func seriesAttrs(c model.Customer, plans map[string]engine.Plan) accountseries.CustomerAttrs {
	ext := make(map[string]string, len(plans))
	for id, p := range plans {
		ext[id] = p.ExternalID
	}
	return accountseries.CustomerAttrs{UUID: c.UUID, ID: c.ID, Name: c.Name, ExternalID: c.ExternalID,
		DataSourceUUID: c.DataSourceUUID, Country: c.Country, PlanExternalIDs: ext}
}
