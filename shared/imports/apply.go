package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/recompute"
	"github.com/subsight/subsight/shared/store"
)

// The worker applies the customers of a batch together, in rounds of distinct
// customers: one round reads what its customers touch in a few batch reads (of a new
// customer, nothing of its records: their claims find another's), computes each customer's changes in memory, and writes them back with one
// conditional write per customer where uniqueness or concurrency needs it (a new
// customer's external id, a changed customer record, the billing index) and batch
// writes for everything else. Every write is keyed by external ids and skipped when
// unchanged, so a retry after a crash at any point finishes what the attempt began.

// Delivery is one import message as the queue delivered it.
type Delivery struct {
	Message
	// Redelivered: an earlier attempt may have written the records and died before
	// asking for the recompute, so the retry asks for it even if it changes nothing.
	Redelivered bool
}

// ApplyMessages applies the messages of one round (distinct customers), sends the
// recompute jobs of the customers that changed, and records their statuses. It
// returns one error per message: nil when applied (records that cannot be applied
// are reported in the status), else an infrastructure failure to retry.
func (p *Pipeline) ApplyMessages(ctx context.Context, ds []Delivery) []error {
	units := make([]*unit, len(ds))
	parts, errs := p.loadParts(ctx, ds)
	for i, d := range ds {
		units[i] = newUnit(d.Message, parts[i])
		units[i].err = errs[i]
	}
	p.applyRound(ctx, units)

	var recompute []jobs.Message
	for i, u := range units {
		if u.err == nil && (u.changed != "" || ds[i].Redelivered && u.customer.UUID != "") {
			recompute = append(recompute, jobs.Recompute(u.m.AccountID, u.customer.UUID, u.m.ImportID))
		}
	}
	if err := p.Jobs.SendBatch(ctx, recompute); err != nil {
		failAll(units, err)
	}
	var statuses []store.ImportCustomerStatusWrite
	for _, u := range units {
		if u.err == nil {
			statuses = append(statuses, store.ImportCustomerStatusWrite{AccountID: u.m.AccountID, ImportID: u.m.ImportID, Status: u.st})
		}
	}
	if err := p.Store.PutImportCustomerStatuses(ctx, statuses); err != nil {
		failAll(units, err)
	}
	out := make([]error, len(units))
	for i, u := range units {
		out[i] = u.err
	}
	return out
}

// Apply applies one customer's records (the synchronous invoice import uses it);
// changed is the customer uuid when anything was written.
func (p *Pipeline) Apply(ctx context.Context, m Message, part Part) (model.ImportCustomerStatus, string, error) {
	u := newUnit(m, part)
	p.applyRound(ctx, []*unit{u})
	return u.st, u.changed, u.err
}

// MarkFailed records that a customer's message failed every attempt (it goes to the
// dead-letter queue); cause is logged by the caller, not shown to clients.
func (p *Pipeline) MarkFailed(ctx context.Context, m Message) error {
	failed := model.KindStatus{Status: model.RecordsFailed}
	return p.Store.PutImportCustomerStatus(ctx, m.AccountID, m.ImportID, model.ImportCustomerStatus{
		ExternalID: m.CustomerExternalID, Status: model.RecordsFailed, Customers: failed, Invoices: failed,
		LineItems: failed, Transactions: failed, SubscriptionEvents: failed,
		Errors:    []model.RecordError{{Message: "The records of this customer could not be imported; please send them again"}},
		UpdatedAt: p.Now()})
}

// loadParts reads each message's part; messages of one S3 object share one read.
func (p *Pipeline) loadParts(ctx context.Context, ds []Delivery) ([]Part, []error) {
	objects := map[string][]Part{}
	objErr := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, d := range ds {
		if _, ok := objects[d.Key]; ok {
			continue
		}
		objects[d.Key] = nil
		wg.Go(func() {
			var parts []Part
			raw, err := p.Parts.Get(ctx, d.Key)
			if err == nil {
				err = json.Unmarshal(raw, &parts)
			}
			mu.Lock()
			defer mu.Unlock()
			objects[d.Key], objErr[d.Key] = parts, err
		})
	}
	wg.Wait()
	parts := make([]Part, len(ds))
	errs := make([]error, len(ds))
	for i, d := range ds {
		list, err := objects[d.Key], objErr[d.Key]
		switch {
		case err != nil:
			errs[i] = fmt.Errorf("imports: read part %s: %w", d.Key, err)
		case d.Index < 0 || d.Index >= len(list) || list[d.Index].CustomerExternalID != d.CustomerExternalID:
			errs[i] = fmt.Errorf("imports: part %d of %s is not customer %q", d.Index, d.Key, d.CustomerExternalID)
		default:
			parts[i] = list[d.Index]
		}
	}
	return parts, errs
}

func failAll(units []*unit, err error) {
	for _, u := range units {
		if u.err == nil {
			u.err = err
		}
	}
}

func (p *Pipeline) step(name string) error {
	if p.AfterWrite == nil {
		return nil
	}
	return p.AfterWrite(name)
}

// applyRound applies units of distinct customers, account by account.
func (p *Pipeline) applyRound(ctx context.Context, units []*unit) {
	var accounts []string
	byAccount := map[string][]*unit{}
	for _, u := range units {
		if u.err != nil {
			continue
		}
		if _, ok := byAccount[u.m.AccountID]; !ok {
			accounts = append(accounts, u.m.AccountID)
		}
		byAccount[u.m.AccountID] = append(byAccount[u.m.AccountID], u)
	}
	for _, acc := range accounts {
		p.applyAccount(ctx, acc, byAccount[acc])
	}
}

func (p *Pipeline) applyAccount(ctx context.Context, accountID string, units []*unit) {
	q := store.ImportStateQuery{AccountID: accountID}
	for _, u := range units {
		u.query(&q)
	}
	state, err := p.Store.ReadImportState(ctx, q)
	if err != nil {
		failAll(units, err)
		return
	}
	now := p.Now()
	p.resolveCustomers(ctx, units, state, now)
	if err := p.step("customer"); err != nil {
		failAll(units, err)
		return
	}
	var records store.ImportedRecords
	claims := map[string]string{}
	for _, u := range live(units) {
		u.claims = claims
		u.mergeBilling(state, now)
		u.mergeEvents(state, now)
		u.nextIndex()
	}
	p.firstFigures(ctx, accountID, live(units), state, now)
	// The order of the writes keeps every record a customer owns listed in its index
	// (what erasure and recomputation read) at every instant: the indexes first (an
	// entry whose record is not written yet, or was lost to another customer, is
	// skipped by every reader), then the claims of the records' external ids, then the
	// records. A lost claim is not an error: the unit is applied again from a fresh read
	// (retryLost), which reports the record as another's and drops it from the index.
	p.writeIndexes(ctx, live(units))
	var newIndexes []store.BillingIndex
	for _, u := range live(units) {
		if u.reserve && u.indexChanged {
			newIndexes = append(newIndexes, u.index)
		}
	}
	if len(newIndexes) > 0 {
		if err := p.Store.PutImportedRecords(ctx, store.ImportedRecords{NewIndexes: newIndexes}); err != nil {
			failAll(units, err)
			return
		}
	}
	if err := p.step("index"); err != nil {
		failAll(units, err)
		return
	}
	// The locators of records without an external id go before any invoice that holds
	// them (a claimed one included): a crash leaves a locator of a record not stored
	// yet, never a stored record without its locator.
	var locators []store.RecordLocator
	for _, u := range live(units) {
		locators = append(locators, u.locators...)
	}
	if err := p.Store.PutRecordLocators(ctx, locators); err != nil {
		failAll(units, err)
		return
	}
	p.claimRecords(ctx, live(units), state)
	for _, u := range live(units) {
		if u.create {
			records.NewCustomers = append(records.NewCustomers, u.customer)
		}
		records.Invoices = append(records.Invoices, u.changedInvoices...)
		records.Subscriptions = append(records.Subscriptions, u.changedSubs...)
		records.Events = append(records.Events, u.changedEvents...)
	}
	if err := p.Store.PutImportedRecords(ctx, records); err != nil {
		failAll(units, err)
		return
	}
	if err := p.step("records"); err != nil {
		failAll(units, err)
		return
	}
	for _, u := range units {
		u.finish(now)
	}
	p.retryLost(ctx, accountID, units)
}

// firstFigures gives the customers the units create the figures their first
// recomputation computes (recompute.WithFirstFigures), from the records the round
// writes for them: their items are then written once. Without them (the account or a
// rate could not be read) the recomputation writes the figures, as for any customer.
func (p *Pipeline) firstFigures(ctx context.Context, accountID string, units []*unit, state store.ImportState, now time.Time) {
	var creating []*unit
	for _, u := range units {
		if u.create {
			creating = append(creating, u)
		}
	}
	if len(creating) == 0 {
		return
	}
	acc, err := p.Store.GetAccount(ctx, accountID)
	if err != nil {
		slog.WarnContext(ctx, "new customers' figures left to their recomputation", "account_id", accountID, "error", err)
		return
	}
	plans := slices.Collect(maps.Values(state.Plans))
	for _, u := range creating {
		nc := recompute.NewCustomer{Customer: u.customer, Plans: plans, Subscriptions: slices.Collect(maps.Values(u.subs))}
		for _, inv := range u.invoices {
			nc.Invoices = append(nc.Invoices, *inv)
		}
		changed := map[int64]model.SubscriptionEvent{}
		for _, e := range u.changedEvents {
			changed[e.ID] = e
		}
		for id := range u.events {
			if e, ok := changed[id]; ok {
				nc.Events = append(nc.Events, e)
			} else if e, ok := state.Events[id]; ok {
				nc.Events = append(nc.Events, e)
			}
		}
		c, err := recompute.WithFirstFigures(ctx, p.Store, acc, now, nc)
		if err != nil {
			slog.WarnContext(ctx, "new customer's figures left to its recomputation", "account_id", accountID, "error", err)
			continue
		}
		u.customer = c
	}
}

// live are the units still being applied.
func live(units []*unit) []*unit {
	var out []*unit
	for _, u := range units {
		if u.err == nil && !u.done && !u.lost {
			out = append(out, u)
		}
	}
	return out
}

// maxClaimAttempts bounds how often one message is applied again after losing an
// external id: each new attempt reads the winner's record and reports it, so a second
// loss needs another customer racing for another of its ids in those milliseconds.
const maxClaimAttempts = 4

// claimRecords takes the external ids of the records the units create, each with a
// conditional write of the record itself or of its locator (absent, or already the
// customer's), never read-then-write. Three steps, a later one only for the units
// whose earlier claims all held, so that nothing a lost claim invalidates is written:
//  1. line items' and transactions' locators (their external ids): an invoice is
//     written only with records whose ids it holds;
//  2. new invoices and subscription events, whole (a conditional PutItem costs what the
//     batch write of the item would);
//  3. new subscriptions, derived from the line items that 1 and 2 kept.
//
// What a unit claimed before losing is its own and stays; its new attempt reads it
// back, rewrites an invoice whose line item billed a lost subscription, and takes the
// claims it did not reach. A locator whose invoice then does not hold its record holds
// nothing (docs/data-model.md).
func (p *Pipeline) claimRecords(ctx context.Context, units []*unit, state store.ImportState) {
	var locs []store.RecordLocator
	var owners []*unit
	now := p.Now()
	for _, u := range units {
		for _, l := range u.claimLocs {
			l.At = now
			locs = append(locs, l)
			owners = append(owners, u)
		}
	}
	settleClaims(owners, p.Store.ClaimRecordLocators(ctx, locs))

	var invs []model.Invoice
	var evs []model.SubscriptionEvent
	var invOwners, evOwners []*unit
	for _, u := range live(units) {
		u.changedInvoices = takeNew(u, u.changedInvoices, state.Invoices, func(inv model.Invoice) string { return inv.UUID }, &invs, &invOwners)
		u.changedEvents = takeNew(u, u.changedEvents, state.Events, func(e model.SubscriptionEvent) int64 { return e.ID }, &evs, &evOwners)
	}
	var wg sync.WaitGroup
	var invErrs, evErrs []error
	wg.Go(func() { invErrs = p.Store.PutInvoices(ctx, invs) })
	wg.Go(func() { evErrs = p.Store.ClaimSubscriptionEvents(ctx, evs) })
	wg.Wait()
	settleClaims(invOwners, invErrs)
	settleClaims(evOwners, evErrs)

	var subs []model.Subscription
	var subOwners []*unit
	for _, u := range live(units) {
		u.changedSubs = takeNew(u, u.changedSubs, state.Subscriptions, func(sub model.Subscription) string { return sub.UUID }, &subs, &subOwners)
	}
	settleClaims(subOwners, p.Store.PutSubscriptions(ctx, subs))
}

// takeNew moves the records the round did not find stored from changed to claims (with
// u as their owner) and returns the rest, which the batch writes.
func takeNew[T any, K comparable, V any](u *unit, changed []T, stored map[K]V, key func(T) K, claims *[]T, owners *[]*unit) []T {
	return slices.DeleteFunc(changed, func(rec T) bool {
		_, found := stored[key(rec)]
		if !found {
			*claims, *owners = append(*claims, rec), append(*owners, u)
		}
		return !found
	})
}

// settleClaims records the outcome of claims, errs[i] being owners[i]'s.
func settleClaims(owners []*unit, errs []error) {
	for i, err := range errs {
		u := owners[i]
		switch {
		case err == nil:
			u.claimed = true
		case errors.Is(err, store.ErrOwnedElsewhere):
			u.lost = true
		case u.err == nil:
			u.err = err
		}
	}
}

// retryLost applies again, from a fresh read, the units that lost a claim: the read
// now finds the other customer's record and the unit reports it failed, as if it had
// come second.
func (p *Pipeline) retryLost(ctx context.Context, accountID string, units []*unit) {
	var again, was []*unit
	for _, u := range units {
		if u.err != nil || !u.lost {
			continue
		}
		if u.attempt+1 >= maxClaimAttempts {
			u.err = fmt.Errorf("imports: customer %q lost %d races for external ids in a row", u.m.CustomerExternalID, maxClaimAttempts)
			continue
		}
		r := newUnit(u.m, u.part)
		if u.create && r.m.CustomerID == 0 {
			r.m.CustomerID = u.customer.ID // the id drawn for it, not written yet
		}
		r.attempt, r.claimed, r.retract = u.attempt+1, u.claimed, u.added()
		again, was = append(again, r), append(was, u)
	}
	if len(again) == 0 {
		return
	}
	p.applyAccount(ctx, accountID, again)
	for i, r := range again {
		*was[i] = *r
	}
}

// resolveCustomers finds or creates each unit's customer: the reservations of new
// external ids and the changed customer records (conditional writes) go in parallel.
func (p *Pipeline) resolveCustomers(ctx context.Context, units []*unit, state store.ImportState, now time.Time) {
	seen := map[string]bool{}
	for _, u := range units {
		cs := state.Customers[u.ref()]
		derived := store.ImportedCustomerUUID(u.m.AccountID, u.m.DataSourceUUID, u.m.CustomerExternalID)
		switch {
		case cs.Customer != nil:
			u.customer = *cs.Customer
			if u.part.Customer != nil {
				next := u.customer
				next.Tags = slices.Clone(u.customer.Tags)
				if applyImportedFields(&next, *u.part.Customer) {
					old := u.customer
					u.saveFrom, u.customer = &old, next
				}
			}
		case u.part.Customer == nil:
			u.failCustomer(fmt.Sprintf("Customer %q does not exist in this data source", u.m.CustomerExternalID))
			continue
		case cs.Reserved && cs.UUID != derived:
			u.err = fmt.Errorf("imports: customer %q is reserved for %s, which does not exist", u.m.CustomerExternalID, cs.UUID)
			continue
		default:
			// New, or its creation crashed after the reservation: create it (again).
			u.create, u.reserve = true, !cs.Reserved
			u.customer = newImportedCustomer(u.m, derived, u.m.CustomerID, *u.part.Customer, now)
		}
		if seen[u.customer.UUID] {
			// Two external ids of one merged customer in one round: the later one waits.
			u.err = fmt.Errorf("imports: customer %s is already being applied in this batch", u.customer.UUID)
			continue
		}
		seen[u.customer.UUID] = true
		u.state = cs
	}
	var wg sync.WaitGroup
	for _, u := range live(units) {
		if u.create && u.customer.ID == 0 {
			wg.Go(func() { u.customer.ID, u.err = p.Store.NextCustomerID(ctx, u.m.AccountID) })
		}
	}
	wg.Wait()
	var reserve []*unit
	for _, u := range live(units) {
		switch {
		case u.reserve:
			reserve = append(reserve, u)
		case u.saveFrom != nil:
			wg.Go(func() { u.err = p.saveCustomer(ctx, u) })
		}
	}
	if len(reserve) > 0 {
		wg.Go(func() { p.reserveCustomers(ctx, reserve) })
	}
	wg.Wait()
}

// reserveCustomers takes the new customers' external ids, each with a conditional put.
// ErrConflict: another customer took the external id since the read; the retry finds
// it and updates that customer.
func (p *Pipeline) reserveCustomers(ctx context.Context, units []*unit) {
	rs := make([]store.CustomerReservation, len(units))
	for i, u := range units {
		rs[i] = store.CustomerReservation{AccountID: u.m.AccountID, DataSourceUUID: u.m.DataSourceUUID,
			ExternalID: u.m.CustomerExternalID, CustomerUUID: u.customer.UUID}
	}
	for i, err := range p.Store.ReserveImportedCustomers(ctx, rs) {
		units[i].err = err
	}
}

func (p *Pipeline) saveCustomer(ctx context.Context, u *unit) error {
	if err := p.Store.SaveCustomer(ctx, *u.saveFrom, u.customer); err != nil {
		return fmt.Errorf("imports: save customer %s: %w", u.customer.UUID, err)
	}
	u.customer.Version = u.saveFrom.Version + 1
	return nil
}

// writeIndexes takes the plan references the new index entries need (one update per
// plan for the whole round) and writes each changed index of an existing customer
// conditionally on its version; the index of a customer whose external id this round
// reserved goes with the records (nobody else can know it yet). A crash after the
// references and before the index leaves one reference too many, which only keeps
// the plan protected.
func (p *Pipeline) writeIndexes(ctx context.Context, units []*unit) {
	type planRef struct{ ds, plan string }
	refs := map[planRef][]*unit{}
	var order []planRef
	for _, u := range units {
		if !u.indexChanged {
			continue
		}
		for plan, ds := range u.index.Plans {
			if _, had := u.state.Index.Plans[plan]; had {
				continue
			}
			r := planRef{ds, plan}
			if _, ok := refs[r]; !ok {
				order = append(order, r)
			}
			refs[r] = append(refs[r], u)
		}
	}
	for _, r := range order {
		err := p.Store.AddPlanReferences(ctx, units[0].m.AccountID, r.ds, r.plan, len(refs[r]))
		if errors.Is(err, store.ErrNotFound) {
			err = fmt.Errorf("imports: plan %s was deleted during the import", r.plan)
		}
		if err != nil {
			failAll(refs[r], err)
		}
	}
	var wg sync.WaitGroup
	for _, u := range live(units) {
		if u.indexChanged && !u.reserve {
			wg.Go(func() { u.err = p.saveIndex(ctx, u) })
		}
	}
	wg.Wait()
}

// saveIndex writes the unit's index; when another writer changed it since the read,
// it re-reads it and adds the unit's entries again (referencing plans that are new
// to the fresh index one by one).
func (p *Pipeline) saveIndex(ctx context.Context, u *unit) error {
	old, next := u.state.Index, u.index
	for attempt := 0; attempt < 5; attempt++ {
		err := p.Store.PutBillingIndex(ctx, old, next)
		if err == nil {
			return p.releaseRetracted(ctx, u, old, next)
		}
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
		fresh, err := p.Store.GetBillingIndex(ctx, u.m.AccountID, u.customer.UUID)
		if err != nil {
			return err
		}
		extended := u.extend(fresh)
		for plan, ds := range extended.Plans {
			if _, counted := next.Plans[plan]; counted {
				continue
			}
			if _, had := fresh.Plans[plan]; !had {
				if err := p.Store.MarkPlanReferenced(ctx, u.m.AccountID, ds, plan); err != nil {
					return err
				}
			}
		}
		if reflect.DeepEqual(fresh, extended) {
			return nil
		}
		old, next = fresh, extended
	}
	return errors.New("imports: the customer's index kept changing")
}

// releaseRetracted gives back the plan references of the plans an earlier attempt of
// the unit added to the index and this one dropped (dropRetracted).
func (p *Pipeline) releaseRetracted(ctx context.Context, u *unit, old, next store.BillingIndex) error {
	for plan, ds := range u.retract.Plans {
		_, had := old.Plans[plan]
		if _, keeps := next.Plans[plan]; had && !keeps {
			if err := p.Store.ReleasePlanReference(ctx, u.m.AccountID, ds, plan); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
	}
	return nil
}
