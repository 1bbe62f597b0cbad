package recompute

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
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
	store.StripeConnections
	store.Metrics
	store.FXRates
	RecordsStorage
}

// Series keeps the account series and activity log (accountseries.Series, which records
// what it applied per customer and is idempotent on its own).
type Series interface {
	ApplyBatch(ctx context.Context, acc model.Account, shard int, changes []accountseries.Change) (folds []store.SeriesShardPart, errs []error)
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

// Request names one customer to recompute.
type Request struct{ AccountID, CustomerUUID string }

// Customer recomputes one customer at the recomputer's clock, its series in the read
// copy. It is safe to repeat and to redeliver: every write is keyed by the data, the
// account series change is idempotent, and the new state is committed last,
// conditionally on the state it started from.
func (r *Recomputer) Customer(ctx context.Context, accountID, customerUUID string) (Outcome, error) {
	outs, _, errs := r.Customers(ctx, 0, []Request{{AccountID: accountID, CustomerUUID: customerUUID}})
	return outs[0], errs[0]
}

// maxRecomputeAttempts bounds how often one customer of a batch is recomputed again
// after another recomputation of it (in the other lane) changed its state first.
const maxRecomputeAttempts = 3

// Customers recomputes a batch of customers as Customer does each, together: the
// account and plans are read once, the customers at once, and their series
// contributions go in one write (accountseries.ApplyBatch) to the buckets of shard.
// folds are what bulk shards hold of these customers, per account, to be folded into
// the read copy (accountseries.Series.Fold). One outcome and one error per request.
func (r *Recomputer) Customers(ctx context.Context, shard int, reqs []Request) (outs []Outcome, folds map[string][]store.SeriesShardPart, errs []error) {
	outs, errs = make([]Outcome, len(reqs)), make([]error, len(reqs))
	folds = map[string][]store.SeriesShardPart{}
	var accounts []string
	byAccount := map[string][]int{}
	for i, q := range reqs {
		if _, ok := byAccount[q.AccountID]; !ok {
			accounts = append(accounts, q.AccountID)
		}
		byAccount[q.AccountID] = append(byAccount[q.AccountID], i)
	}
	for _, accountID := range accounts {
		idx := byAccount[accountID]
		acc, err := r.store.GetAccount(ctx, accountID)
		if errors.Is(err, store.ErrNotFound) {
			continue // the account is gone: nothing to keep up to date
		}
		if err != nil {
			for _, i := range idx {
				errs[i] = err
			}
			continue
		}
		b := r.batch()
		jobs := make([]*job, len(idx))
		for k, i := range idx {
			jobs[k] = &job{uuid: reqs[i].CustomerUUID}
		}
		for attempt := 1; attempt <= maxRecomputeAttempts; attempt++ {
			todo := slices.DeleteFunc(slices.Clone(jobs), func(j *job) bool { return j.done })
			if len(todo) == 0 {
				break
			}
			folds[accountID] = append(folds[accountID], b.run(ctx, acc, shard, todo, attempt == maxRecomputeAttempts)...)
		}
		for k, i := range idx {
			outs[i], errs[i] = jobs[k].out, jobs[k].err
		}
	}
	return outs, folds, errs
}

// job is one customer of a batch.
type job struct {
	uuid    string
	cust    model.Customer
	gone    bool // deleted: its contribution is taken out
	res     engine.Result
	plans   map[string]engine.Plan
	next    snapshot
	hash    string
	data    []byte
	state   store.MetricsState
	written *snapshot         // what an attempt that lost wrote of the view and the wake-up
	commit  store.SeriesGuard // the commit of the new state, when it changed
	out     Outcome
	err     error
	done    bool
}

// recomputeConcurrency bounds the customers of a batch computed and written at once.
const recomputeConcurrency = 10

// run is one attempt at the jobs: load and compute each; write the view rows, figures
// and wake-up of those whose result changed; then commit, in the transaction of the
// customers' series (accountseries.ApplyBatch), each new state conditioned on the state
// read, so that of two recomputations of one customer at once (the jobs queue's and the
// bulk lane's), the one that read first and commits last loses and is run again,
// writing over what it wrote before losing. The last attempt keeps its error.
func (b *batchRun) run(ctx context.Context, acc model.Account, shard int, jobs []*job, last bool) []store.SeriesShardPart {
	// The wall clock's, whatever the recomputation's clock says: only the order of the
	// reads and writes of concurrent recomputations matters.
	readAt := time.Now()
	parallel.For(len(jobs), recomputeConcurrency, func(i int) { b.load(ctx, acc, jobs[i]) })
	var live []*job
	for _, j := range jobs {
		switch {
		case j.err != nil:
			j.done = true
		case j.gone:
			j.err, j.done = b.forget(ctx, acc.ID, j.uuid), true
		default:
			live = append(live, j)
		}
	}
	parallel.For(len(live), recomputeConcurrency, func(i int) { live[i].err = b.prepare(ctx, acc.ID, live[i]) })
	var changes []accountseries.Change
	var applied []*job
	for _, j := range live {
		if j.err != nil {
			j.done = true
			continue
		}
		changes = append(changes, accountseries.Change{Result: &j.res, Attrs: seriesAttrs(j.cust, j.plans),
			Commit: j.commit, Check: store.SeriesStateCheck(j.state), ReadAt: readAt})
		applied = append(applied, j)
	}
	if len(changes) == 0 {
		return nil
	}
	folds, errs := b.series.ApplyBatch(ctx, acc, shard, changes)
	parallel.For(len(applied), recomputeConcurrency, func(i int) {
		j := applied[i]
		err := errs[i]
		if err == nil {
			err = b.finish(ctx, acc.ID, j)
		}
		switch {
		case err == nil:
			j.done = true
		case !last && (errors.Is(err, store.ErrSeriesChanged) || errors.Is(err, store.ErrConflict)):
			j.err = nil // overtaken: computed again from the records as they are now
		case errors.Is(err, store.ErrSeriesChanged):
			j.err, j.done = fmt.Errorf("account series: %w", err), true
		default:
			j.err, j.done = err, true
		}
	})
	return folds
}

// batchRun is a Recomputer for one batch: reads of plans shared by its customers.
type batchRun struct {
	*Recomputer
}

// batch returns a run whose plan reads are shared by the batch's customers.
func (r *Recomputer) batch() *batchRun {
	st := &sharedPlans{Storage: r.store}
	rc := *r
	rc.store = st
	if _, ok := r.records.(StoreRecords); ok {
		rc.records = StoreRecords{Store: st}
	}
	return &batchRun{Recomputer: &rc}
}

// load reads what a job's customer needs and computes its result.
func (b *batchRun) load(ctx context.Context, acc model.Account, j *job) {
	var custErr, stateErr error
	var wg sync.WaitGroup
	wg.Go(func() { j.cust, custErr = b.store.GetCustomer(ctx, acc.ID, j.uuid) })
	wg.Go(func() { j.state, stateErr = b.store.GetMetricsState(ctx, acc.ID, j.uuid) })
	res, plans, err := b.compute(ctx, acc, j.uuid)
	wg.Wait()
	switch {
	case errors.Is(custErr, store.ErrNotFound):
		j.gone = true
		return
	case custErr != nil:
		j.err = custErr
		return
	case stateErr != nil:
		j.err = stateErr
		return
	case err != nil:
		j.err = err
		return
	}
	j.res, j.plans = res, plans
	j.next = newSnapshot(customerView{accountID: acc.ID, customerUUID: j.uuid, currency: acc.Currency, plans: plans}, j.cust.Country, res)
	j.hash, j.data, j.err = j.next.encode()
	j.out = Outcome{Status: customerStatus(j.cust.Status, res.Status), MRR: res.MRR, WakeAt: res.NextChangeAt}
}

// prepare writes what a job's changed result changes besides its state and series:
// the view rows by difference (also with the rows an attempt that lost wrote), the
// customer's figures, its wake-up; and prepares the commit of its new state. Every
// write is keyed by the data, so a repeat is harmless.
func (b *batchRun) prepare(ctx context.Context, accountID string, j *job) error {
	j.commit = store.SeriesGuard{}
	if j.state.Hash == j.hash && j.written == nil {
		return nil
	}
	prev, err := decodeSnapshot(accountID, j.state.Data)
	if err != nil {
		return fmt.Errorf("metrics state of %s: %w", j.uuid, err)
	}
	change := viewChange(prev, &j.next)
	wakeFrom := prev
	if j.written != nil {
		change = mergeViewChanges(change, viewChange(j.written, &j.next))
		wakeFrom = j.written
	}
	if err := b.store.WriteMetricsView(ctx, change); err != nil {
		return err
	}
	j.written = &j.next
	if err := b.syncCustomer(ctx, j.cust, j.next, prev, false); err != nil {
		return err
	}
	if err := b.syncWake(ctx, accountID, j.uuid, wakeFrom, j.next); err != nil {
		return err
	}
	if j.state.Hash != j.hash {
		j.commit, err = b.store.MetricsStateCommit(ctx, accountID, j.uuid, j.state, store.MetricsState{Hash: j.hash, Data: j.data})
	}
	return err
}

// finish ends a job whose series and state are committed: a result committed before
// only has the customer item repaired if someone overwrote its figures (a full save
// racing with the last recomputation); ErrConflict when the customer changed since it
// was read (computed again).
func (b *batchRun) finish(ctx context.Context, accountID string, j *job) error {
	j.written = nil
	if j.commit.Kind == store.SeriesGuardNone {
		return b.syncCustomer(ctx, j.cust, j.next, nil, true)
	}
	j.out.Changed = true
	slog.InfoContext(ctx, "customer recomputed", "account_id", accountID, "customer_uuid", j.uuid,
		"status", j.out.Status, "mrr", j.res.MRR, "movements", len(j.res.Movements), "invalid_invoices", len(j.res.InvalidInvoices))
	return b.store.DropMetricsStateTails(ctx, accountID, j.uuid, j.state, store.MetricsState{Hash: j.hash, Data: j.data})
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
	sources, err := loadSourceRules(ctx, r.store, acc.ID, recs)
	if err != nil {
		return engine.Input{}, nil, err
	}
	in, byUUID := newInput(r.now(), acc, plans, rates, conns, recs)
	in.Sources = sources
	return in, byUUID, nil
}

// newInput is the engine's input from what buildInput loads, with the plans by uuid.
func newInput(now time.Time, acc model.Account, plans []engine.Plan, rates engine.RateTable, conns []store.Connection, recs Records) (engine.Input, map[string]engine.Plan) {
	byUUID := make(map[string]engine.Plan, len(plans))
	for _, p := range plans {
		byUUID[p.UUID] = p
	}
	for i, ev := range recs.Events {
		if _, ok := byUUID[ev.PlanUUID]; !ok {
			recs.Events[i].PlanUUID = "" // its plan is gone: as for a plan never known
		}
	}
	return engine.Input{Now: now, Settings: settings(acc), Plans: plans, Invoices: recs.Invoices,
		Events: recs.Events, CancellationHistory: recs.CancellationHistory, Connections: connections(conns),
		Rates: rates}, byUUID
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
// snapshot, and the auto-churn tag when the snapshot newly auto-churned. A save that
// raced it is read again and written over, unless strict: then it is ErrConflict.
func (r *Recomputer) syncCustomer(ctx context.Context, cust model.Customer, next snapshot, prev *snapshot, strict bool) error {
	for attempt := 0; ; attempt++ {
		m := customerMetrics(cust, next, prev)
		if sameMetrics(cust, m) {
			return nil
		}
		err := r.store.UpdateCustomerMetrics(ctx, cust.AccountID, cust.UUID, cust.Version, m)
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted meanwhile; its deletion enqueues the clean-up
		}
		if !errors.Is(err, store.ErrConflict) || attempt+1 == maxCustomerAttempts || strict {
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

// customerMetrics is what the snapshot next sets on the customer cust, prev being the
// snapshot before it (nil for none).
func customerMetrics(cust model.Customer, next snapshot, prev *snapshot) store.CustomerMetrics {
	m := store.CustomerMetrics{MRR: next.MRR, ARR: next.ARR, Status: customerStatus(cust.Status, next.Status),
		BillingCurrencies: next.Currencies, ActiveQuantity: next.activeQuantity()}
	if !next.CustomerSince.IsZero() {
		since := next.CustomerSince.UTC()
		m.CustomerSince = &since
	}
	if next.AutoChurned && (prev == nil || !prev.AutoChurned) && !slices.Contains(cust.Tags, AutoChurnTag) {
		m.AddTags = []string{AutoChurnTag}
	}
	return m
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
// items went with its partition; what a recomputation that ran during the deletion
// wrote there since (view rows, a wake-up) goes now: the deletion of the partition is
// repeated, the customer item being absent.
func (r *Recomputer) forget(ctx context.Context, accountID, customerUUID string) error {
	err := r.store.DeleteCustomer(ctx, model.Customer{AccountID: accountID, UUID: customerUUID})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
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
	return accountseries.CustomerAttrs{UUID: c.UUID, Name: c.Name, ExternalID: c.ExternalID,
		DataSourceUUID: c.DataSourceUUID, Country: c.Country, PlanExternalIDs: ext}
}
