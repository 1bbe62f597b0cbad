package imports

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// unit is one customer's part of an import while its round is applied.
type unit struct {
	m    Message
	part Part

	st      model.ImportCustomerStatus
	changed string // the customer uuid once anything was written
	err     error  // an infrastructure failure: the message is retried
	done    bool   // nothing more to apply (the customer does not exist)

	state    store.ImportedCustomerState
	customer model.Customer
	create   bool            // the customer item is new
	reserve  bool            // its external id must be reserved first
	saveFrom *model.Customer // the stored customer when the record changed it

	eventIDs []int64                   // the part's events, in order
	invoices map[string]*model.Invoice // working copies of the customer's invoices the part touches
	skip     map[string]bool           // invoice uuids of another customer

	changedInvoices []model.Invoice
	changedSubs     []model.Subscription
	subs            map[string]model.Subscription // every subscription the part's line items touch
	changedEvents   []model.SubscriptionEvent
	events          map[int64]int64 // applied events -> effective date
	index           store.BillingIndex
	indexChanged    bool

	// locators are the new line items' and transactions' without an external id (written
	// before their invoices); claimLocs those with one, which claimRecords takes with
	// conditional writes. claims maps the records with an external id of the whole round
	// to their invoice, so two customers of one round cannot take the same external id.
	locators  []store.RecordLocator
	claimLocs []store.RecordLocator
	claims    map[string]string

	// A unit that lost the race for an external id (lost) is applied again from a fresh
	// read (attempt counts them), which reports the record as another's; retract holds
	// the index entries its earlier attempts added, which the new attempt drops unless
	// it touches them again; claimed: an earlier attempt wrote records.
	lost    bool
	attempt int
	retract store.BillingIndex
	claimed bool
}

func newUnit(m Message, part Part) *unit {
	ok := model.KindStatus{Status: model.RecordsImported}
	return &unit{m: m, part: part, invoices: map[string]*model.Invoice{}, skip: map[string]bool{},
		subs: map[string]model.Subscription{}, events: map[int64]int64{}, claims: map[string]string{},
		st: model.ImportCustomerStatus{ExternalID: m.CustomerExternalID, Status: model.RecordsImported, Customers: ok,
			Invoices: ok, LineItems: ok, Transactions: ok, SubscriptionEvents: ok}}
}

func (u *unit) ref() store.ExternalRef {
	return store.ExternalRef{DataSourceUUID: u.m.DataSourceUUID, ExternalID: u.m.CustomerExternalID}
}

// planRef names a plan (or an event) of the unit's data source by external id.
func (u *unit) planRef(externalID string) store.ExternalRef {
	return store.ExternalRef{DataSourceUUID: u.m.DataSourceUUID, ExternalID: externalID}
}

func (u *unit) invoiceUUID(externalID string) string {
	return model.InvoiceUUID(u.m.AccountID, u.m.DataSourceUUID, externalID)
}

// query adds what the unit reads to the round's query.
func (u *unit) query(q *store.ImportStateQuery) {
	acc, ds := u.m.AccountID, u.m.DataSourceUUID
	q.Customers = append(q.Customers, u.ref())
	o := store.OwnedRecordsQuery{Customer: u.ref()}
	for _, inv := range u.part.Invoices {
		o.Invoices = append(o.Invoices, u.invoiceUUID(inv.ExternalID))
	}
	for _, li := range u.part.LineItems {
		o.Invoices = append(o.Invoices, u.invoiceUUID(li.InvoiceExternalID))
		if li.ExternalID != "" {
			o.Records = append(o.Records, model.LineItemUUID(acc, ds, "", model.LineItemKey(li.ExternalID, 0)))
		}
		if li.SubscriptionExternalID != "" {
			o.Subscriptions = append(o.Subscriptions, model.SubscriptionUUID(acc, ds, li.SubscriptionExternalID))
		}
		if li.PlanExternalID != "" {
			q.Plans = append(q.Plans, u.planRef(li.PlanExternalID))
		}
	}
	for _, t := range u.part.Transactions {
		o.Invoices = append(o.Invoices, u.invoiceUUID(t.InvoiceExternalID))
		if t.ExternalID != "" {
			o.Records = append(o.Records, model.TransactionUUID(acc, ds, "", model.LineItemKey(t.ExternalID, 0)))
		}
	}
	for _, e := range u.part.Events {
		id := EventID(acc, ds, e.EventFields)
		u.eventIDs = append(u.eventIDs, id)
		o.Events = append(o.Events, id)
		if e.ExternalID != "" {
			q.EventExternalIDs = append(q.EventExternalIDs, u.planRef(e.ExternalID))
		}
		if e.PlanExternalID != nil && *e.PlanExternalID != "" {
			q.Plans = append(q.Plans, u.planRef(*e.PlanExternalID))
		}
	}
	q.Owned = append(q.Owned, o)
}

func (u *unit) fail(kind *model.KindStatus, externalID, format string, args ...any) {
	kind.Status = model.RecordsFailed
	kind.Errors = append(kind.Errors, model.RecordError{ExternalID: externalID, Message: fmt.Sprintf(format, args...)})
}

// failCustomer reports every record of the unit failed for one reason.
func (u *unit) failCustomer(msg string) {
	for _, k := range []*model.KindStatus{&u.st.Customers, &u.st.Invoices, &u.st.LineItems, &u.st.Transactions, &u.st.SubscriptionEvents} {
		u.fail(k, u.m.CustomerExternalID, "%s", msg)
	}
	u.done = true
}

// finish sets the unit's overall status and whether it changed anything.
func (u *unit) finish(now time.Time) {
	if u.err != nil {
		return
	}
	for _, k := range []model.KindStatus{u.st.Customers, u.st.Invoices, u.st.LineItems, u.st.Transactions, u.st.SubscriptionEvents} {
		if k.Status == model.RecordsFailed {
			u.st.Status = model.RecordsFailed
		}
	}
	u.st.UpdatedAt = now
	if !u.done && (u.create || u.saveFrom != nil || u.indexChanged || u.claimed || len(u.changedInvoices)+len(u.changedSubs)+len(u.changedEvents) > 0) {
		u.changed = u.customer.UUID
	}
}

// target returns the working copy of an invoice the customer owns, or nil.
func (u *unit) target(stored map[string]model.Invoice, externalID string) *model.Invoice {
	uuid := u.invoiceUUID(externalID)
	if inv, ok := u.invoices[uuid]; ok {
		return inv
	}
	if u.skip[uuid] {
		return nil
	}
	old, ok := stored[uuid]
	if !ok {
		return nil
	}
	if old.CustomerUUID != u.customer.UUID {
		u.skip[uuid] = true
		return nil
	}
	inv := old
	inv.LineItems = slices.Clone(old.LineItems)
	inv.Transactions = slices.Clone(old.Transactions)
	u.invoices[uuid] = &inv
	return &inv
}

// mergeBilling merges the part's invoices, line items and transactions into the
// stored invoices, and derives the subscriptions of every invoice the part touches
// (not only the changed ones, so that a retry after a crash between the invoice and
// the subscription writes still writes the subscription).
func (u *unit) mergeBilling(state store.ImportState, now time.Time) {
	for _, in := range u.part.Invoices {
		u.mergeInvoice(state.Invoices, in, now)
	}
	for _, li := range u.part.LineItems {
		u.mergeLineItem(state, li)
	}
	for _, t := range u.part.Transactions {
		u.mergeTransaction(state, t)
	}
	var touched []model.Invoice
	for uuid, inv := range u.invoices {
		if old, ok := state.Invoices[uuid]; ok {
			inv.UpdatedAt = old.UpdatedAt
			if reflect.DeepEqual(normalize(old), normalize(*inv)) {
				touched = append(touched, *inv)
				continue
			}
		}
		inv.UpdatedAt = now
		u.changedInvoices = append(u.changedInvoices, *inv)
		touched = append(touched, *inv)
	}
	byDate := func(a, b model.Invoice) int {
		if c := a.Date.Compare(b.Date); c != 0 {
			return c
		}
		return cmp.Compare(a.UUID, b.UUID)
	}
	slices.SortFunc(u.changedInvoices, byDate)
	slices.SortFunc(touched, byDate)
	u.deriveSubscriptions(state.Subscriptions, touched, now)
}

func (u *unit) mergeInvoice(stored map[string]model.Invoice, in model.ImportInvoice, now time.Time) {
	uuid := u.invoiceUUID(in.ExternalID)
	inv := u.target(stored, in.ExternalID)
	if inv == nil && u.skip[uuid] {
		u.fail(&u.st.Invoices, in.ExternalID, "Invoice %q belongs to another customer", in.ExternalID)
		return
	}
	if inv == nil {
		inv = &model.Invoice{AccountID: u.m.AccountID, UUID: uuid, DataSourceUUID: u.m.DataSourceUUID,
			CustomerUUID: u.customer.UUID, ExternalID: in.ExternalID, CreatedAt: now,
			LineItems: []model.LineItem{}, Transactions: []model.Transaction{}}
		u.invoices[uuid] = inv
	}
	inv.CustomerExternalID = u.m.CustomerExternalID
	inv.Date, inv.DueDate, inv.Currency, inv.CollectionMethod = in.Date, in.DueDate, in.Currency, in.CollectionMethod
}

func (u *unit) mergeLineItem(state store.ImportState, in model.ImportLineItem) {
	inv := u.target(state.Invoices, in.InvoiceExternalID)
	id := in.ExternalID
	if id == "" {
		id = in.InvoiceExternalID
	}
	if inv == nil {
		u.fail(&u.st.LineItems, id, "Invoice %q of this line item does not exist for this customer", in.InvoiceExternalID)
		return
	}
	li := model.LineItem{Key: model.LineItemKey(in.ExternalID, in.Position), LineItemFields: in.LineItemFields}
	li.UUID = model.LineItemUUID(u.m.AccountID, u.m.DataSourceUUID, inv.UUID, li.Key)
	if in.PlanExternalID != "" && (in.Type == "subscription" || in.Type == "trial") {
		pl, ok := state.Plans[u.planRef(in.PlanExternalID)]
		if !ok {
			u.fail(&u.st.LineItems, id, "Plan %q does not exist in this data source", in.PlanExternalID)
			return
		}
		li.PlanUUID = pl.UUID
	}
	if in.SubscriptionExternalID != "" {
		li.SubscriptionUUID = model.SubscriptionUUID(u.m.AccountID, u.m.DataSourceUUID, in.SubscriptionExternalID)
		if sub, ok := state.Subscriptions[li.SubscriptionUUID]; ok && sub.CustomerUUID != u.customer.UUID {
			// A line item never bills another customer's subscription: one an earlier
			// attempt wrote before it lost the subscription's claim goes.
			inv.LineItems = slices.DeleteFunc(inv.LineItems, func(held model.LineItem) bool {
				return held.UUID == li.UUID && held.SubscriptionUUID == li.SubscriptionUUID
			})
			u.fail(&u.st.LineItems, id, "Subscription %q belongs to another customer", in.SubscriptionExternalID)
			return
		}
	}
	if !u.claim(state, li.UUID, in.ExternalID, inv.UUID) {
		u.fail(&u.st.LineItems, id, "Line item external id %q is used by another invoice of this data source", in.ExternalID)
		return
	}
	inv.UpsertLineItem(li)
}

func (u *unit) mergeTransaction(state store.ImportState, in model.ImportTransaction) {
	stored := state.Invoices
	inv := u.target(stored, in.InvoiceExternalID)
	id := in.ExternalID
	if id == "" {
		id = in.InvoiceExternalID
	}
	if inv == nil {
		u.fail(&u.st.Transactions, id, "Invoice %q of this transaction does not exist for this customer", in.InvoiceExternalID)
		return
	}
	t := model.Transaction{Key: model.LineItemKey(in.ExternalID, in.Position), TransactionFields: in.TransactionFields}
	t.UUID = model.TransactionUUID(u.m.AccountID, u.m.DataSourceUUID, inv.UUID, t.Key)
	if t.Result == "successful" && model.ExcessPayment(inv.Total(), inv.Settled(t.Type, t.Key), t.AmountInCents) {
		u.fail(&u.st.Transactions, id, "The %ss of invoice %q would add up to more than its amount", t.Type, in.InvoiceExternalID)
		return
	}
	if !u.claim(state, t.UUID, in.ExternalID, inv.UUID) {
		u.fail(&u.st.Transactions, id, "Transaction external id %q is used by another invoice of this data source", in.ExternalID)
		return
	}
	inv.UpsertTransaction(t)
}

// claim checks that no other invoice holds the external id of a line item or
// transaction (ChartMogul keeps them unique per data source; the uuid is derived from
// it), neither stored nor earlier in the round, and notes the locator of a record the
// stored invoice does not hold yet: with an external id, the locator is the id's claim
// (claimRecords writes it conditionally, the read only finds the clear cases early).
func (u *unit) claim(state store.ImportState, uuid, externalID, invoiceUUID string) bool {
	if externalID != "" {
		if holder, ok := state.RecordHolders[uuid]; ok && holder != invoiceUUID {
			return false
		}
		if holder, ok := u.claims[uuid]; ok && holder != invoiceUUID {
			return false
		}
		u.claims[uuid] = invoiceUUID
	}
	if old, ok := state.Invoices[invoiceUUID]; ok && (old.LineItemIndex(uuid) >= 0 || old.TransactionIndex(uuid) >= 0) {
		return true
	}
	loc := store.RecordLocator{AccountID: u.m.AccountID, UUID: uuid, InvoiceUUID: invoiceUUID}
	list := &u.locators
	if externalID != "" {
		loc.Replaces, list = state.StaleHolders[uuid], &u.claimLocs
	}
	if !slices.ContainsFunc(*list, func(l store.RecordLocator) bool { return l.UUID == uuid }) {
		*list = append(*list, loc)
	}
	return true
}

// normalize makes a stored and a merged invoice comparable (times in UTC, empty
// slices equal to nil).
func normalize(inv model.Invoice) model.Invoice {
	b, _ := json.Marshal(inv)
	var out model.Invoice
	_ = json.Unmarshal(b, &out)
	if len(out.LineItems) == 0 {
		out.LineItems = nil
	}
	if len(out.Transactions) == 0 {
		out.Transactions = nil
	}
	return out
}

// deriveSubscriptions folds the subscription line items of the invoices into their
// subscriptions (folding is idempotent: the latest service period wins and
// cancellation dates are a set) and keeps those that changed.
func (u *unit) deriveSubscriptions(stored map[string]model.Subscription, invoices []model.Invoice, now time.Time) {
	work := map[string]*model.Subscription{}
	var order []string
	for _, inv := range invoices {
		for _, li := range inv.LineItems {
			if li.SubscriptionUUID == "" || li.PlanUUID == "" {
				continue
			}
			sub, ok := work[li.SubscriptionUUID]
			if !ok {
				s, found := stored[li.SubscriptionUUID]
				if found && s.CustomerUUID != u.customer.UUID {
					continue // reported by mergeLineItem when the part sent it
				}
				if !found {
					s = model.Subscription{AccountID: u.m.AccountID, UUID: li.SubscriptionUUID, DataSourceUUID: u.m.DataSourceUUID,
						CustomerUUID: u.customer.UUID, ExternalID: li.SubscriptionExternalID, CreatedAt: now}
				}
				s.CancellationDates = slices.Clone(s.CancellationDates)
				sub = &s
				work[li.SubscriptionUUID] = sub
				order = append(order, li.SubscriptionUUID)
			}
			sub.ApplyLineItem(li)
		}
	}
	for _, uuid := range order {
		sub := work[uuid]
		if old, ok := stored[uuid]; !ok || !reflect.DeepEqual(old, *sub) {
			sub.UpdatedAt = now
			u.changedSubs = append(u.changedSubs, *sub)
		}
		u.subs[uuid] = *sub
	}
}

// nextIndex is the customer's index with every invoice, subscription, plan and event
// the part touches (whether or not they changed: a retry after a crash between the
// index and the records must find the same index).
func (u *unit) nextIndex() {
	u.index = u.extend(u.state.Index)
	u.indexChanged = !reflect.DeepEqual(u.index, u.state.Index)
}

// extend returns idx with the unit's entries added.
func (u *unit) extend(idx store.BillingIndex) store.BillingIndex {
	next := idx.Clone()
	for _, inv := range u.invoices {
		next.Invoices[inv.UUID] = inv.Date.Unix()
		for _, li := range inv.LineItems {
			if li.PlanUUID != "" {
				next.Plans[li.PlanUUID] = inv.DataSourceUUID
			}
		}
	}
	for uuid, s := range u.subs {
		if _, ok := next.Subscriptions[uuid]; !ok {
			next.Subscriptions[uuid] = s.CreatedAt.UnixNano()
		}
	}
	for id, at := range u.events {
		next.Events[strconv.FormatInt(id, 10)] = at
	}
	u.dropRetracted(&next)
	return next
}

// dropRetracted removes from idx what an earlier attempt of the unit added and this
// one no longer touches (the records it lost to another customer, the plans only they
// used).
func (u *unit) dropRetracted(idx *store.BillingIndex) {
	if u.retract.Invoices == nil {
		return
	}
	for uuid := range u.retract.Invoices {
		if _, mine := u.invoices[uuid]; !mine {
			delete(idx.Invoices, uuid)
		}
	}
	for uuid := range u.retract.Subscriptions {
		if _, mine := u.subs[uuid]; !mine {
			delete(idx.Subscriptions, uuid)
		}
	}
	for id := range u.retract.Events {
		n, err := strconv.ParseInt(id, 10, 64)
		if _, mine := u.events[n]; err != nil || !mine {
			delete(idx.Events, id)
		}
	}
	used := map[string]bool{}
	for _, inv := range u.invoices {
		for _, li := range inv.LineItems {
			used[li.PlanUUID] = true
		}
	}
	for plan := range u.retract.Plans {
		if !used[plan] {
			delete(idx.Plans, plan)
		}
	}
}

// added is what the unit's index gained over the stored one, with what earlier
// attempts added (the stored index a retry reads already holds that).
func (u *unit) added() store.BillingIndex {
	out := u.retract.Clone()
	if out.Invoices == nil {
		out = store.BillingIndex{Invoices: map[string]int64{}, Subscriptions: map[string]int64{}, Plans: map[string]string{},
			Events: map[string]int64{}}
	}
	addNew(out.Invoices, u.index.Invoices, u.state.Index.Invoices)
	addNew(out.Subscriptions, u.index.Subscriptions, u.state.Index.Subscriptions)
	addNew(out.Plans, u.index.Plans, u.state.Index.Plans)
	addNew(out.Events, u.index.Events, u.state.Index.Events)
	return out
}

// addNew copies into out the entries of next that old does not have.
func addNew[V any](out, next, old map[string]V) {
	for k, v := range next {
		if _, had := old[k]; !had {
			out[k] = v
		}
	}
}
