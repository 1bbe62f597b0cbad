package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ApplyMessage applies one customer's part of an import and records its status.
// A returned error is an infrastructure failure: the message is retried and, as
// every write is keyed by external ids and skipped when unchanged, a retry finishes
// what an interrupted attempt began. Records that cannot be applied (a missing plan,
// an external id of another customer) are reported in the status instead.
func (p *Pipeline) ApplyMessage(ctx context.Context, m Message) (model.ImportCustomerStatus, error) {
	raw, err := p.Blobs.Get(ctx, m.Key)
	if err != nil {
		return model.ImportCustomerStatus{}, fmt.Errorf("imports: read part %s: %w", m.Key, err)
	}
	var part Part
	if err := json.Unmarshal(raw, &part); err != nil {
		return model.ImportCustomerStatus{}, fmt.Errorf("imports: bad part %s: %w", m.Key, err)
	}
	st, changed, err := p.Apply(ctx, m, part)
	if err != nil {
		return st, err
	}
	if changed != "" {
		// The recompute (issue 5) runs on the jobs queue; the import does not wait for it.
		job := jobs.Message{Type: jobs.RecomputeCustomer, AccountID: m.AccountID, CustomerUUID: changed, Nonce: m.ImportID}
		if err := p.Jobs.Send(ctx, job); err != nil {
			return st, err
		}
	}
	if err := p.Store.PutImportCustomerStatus(ctx, m.AccountID, m.ImportID, st); err != nil {
		return st, err
	}
	return st, nil
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

// applyRun is the state of one Apply.
type applyRun struct {
	p        *Pipeline
	m        Message
	customer model.Customer
	st       model.ImportCustomerStatus
	plans    map[string]*model.Plan // by external id; nil = missing
	invoices map[string]*model.Invoice
	stored   map[string]model.Invoice
	subs     map[string]model.Subscription
	skip     map[string]bool // invoice uuids that belong to another customer
}

func (r *applyRun) fail(kind *model.KindStatus, externalID, format string, args ...any) {
	kind.Status = model.RecordsFailed
	kind.Errors = append(kind.Errors, model.RecordError{ExternalID: externalID, Message: fmt.Sprintf(format, args...)})
}

func (p *Pipeline) step(name string) error {
	if p.AfterWrite == nil {
		return nil
	}
	return p.AfterWrite(name)
}

// Apply applies a part; changed is the customer uuid when anything was written.
func (p *Pipeline) Apply(ctx context.Context, m Message, part Part) (model.ImportCustomerStatus, string, error) {
	ok := model.KindStatus{Status: model.RecordsImported}
	r := &applyRun{p: p, m: m, plans: map[string]*model.Plan{}, invoices: map[string]*model.Invoice{}, skip: map[string]bool{},
		st: model.ImportCustomerStatus{ExternalID: m.CustomerExternalID, Status: model.RecordsImported, Customers: ok,
			Invoices: ok, LineItems: ok, Transactions: ok, SubscriptionEvents: ok}}
	c, created, err := p.Store.UpsertImportedCustomer(ctx, store.ImportedCustomer{AccountID: m.AccountID,
		DataSourceUUID: m.DataSourceUUID, System: m.System, Currency: m.Currency, ExternalID: m.CustomerExternalID,
		Record: part.Customer, ID: m.CustomerID}, p.Now())
	if errors.Is(err, store.ErrNotFound) {
		msg := fmt.Sprintf("Customer %q does not exist in this data source", m.CustomerExternalID)
		for _, k := range []*model.KindStatus{&r.st.Customers, &r.st.Invoices, &r.st.LineItems, &r.st.Transactions, &r.st.SubscriptionEvents} {
			r.fail(k, m.CustomerExternalID, "%s", msg)
		}
		r.st.Status, r.st.UpdatedAt = model.RecordsFailed, p.Now()
		return r.st, "", nil
	}
	if err != nil {
		return r.st, "", err
	}
	r.customer = c
	if err := p.step("customer"); err != nil {
		return r.st, "", err
	}
	wrote, err := r.applyBilling(ctx, part)
	if err != nil {
		return r.st, "", err
	}
	wroteEvents, err := r.applyEvents(ctx, part.Events)
	if err != nil {
		return r.st, "", err
	}
	for _, k := range []model.KindStatus{r.st.Customers, r.st.Invoices, r.st.LineItems, r.st.Transactions, r.st.SubscriptionEvents} {
		if k.Status == model.RecordsFailed {
			r.st.Status = model.RecordsFailed
		}
	}
	r.st.UpdatedAt = p.Now()
	changed := ""
	if created || part.Customer != nil || wrote || wroteEvents {
		changed = c.UUID
	}
	return r.st, changed, nil
}

// plan resolves a plan of the data source by external id (cached per message).
func (r *applyRun) plan(ctx context.Context, externalID string) (*model.Plan, error) {
	if pl, ok := r.plans[externalID]; ok {
		return pl, nil
	}
	pl, err := r.p.Store.GetPlanByExternalID(ctx, r.m.AccountID, r.m.DataSourceUUID, externalID)
	if errors.Is(err, store.ErrNotFound) {
		r.plans[externalID] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r.plans[externalID] = &pl
	return &pl, nil
}

// applyBilling merges the part's invoices, line items and transactions into the
// stored invoices and derives the subscriptions, then writes the index (with plan
// references) first and the changed invoices and subscriptions after it.
func (r *applyRun) applyBilling(ctx context.Context, part Part) (bool, error) {
	acc, ds := r.m.AccountID, r.m.DataSourceUUID
	var uuids, subUUIDs []string
	for _, inv := range part.Invoices {
		uuids = append(uuids, model.InvoiceUUID(acc, ds, inv.ExternalID))
	}
	for _, li := range part.LineItems {
		uuids = append(uuids, model.InvoiceUUID(acc, ds, li.InvoiceExternalID))
		if li.SubscriptionExternalID != "" {
			subUUIDs = append(subUUIDs, model.SubscriptionUUID(acc, ds, li.SubscriptionExternalID))
		}
	}
	for _, t := range part.Transactions {
		uuids = append(uuids, model.InvoiceUUID(acc, ds, t.InvoiceExternalID))
	}
	if len(uuids) == 0 {
		return false, nil
	}
	var err error
	if r.stored, err = r.p.Store.GetInvoices(ctx, acc, uuids); err != nil {
		return false, err
	}
	if r.subs, err = r.p.Store.GetSubscriptions(ctx, acc, subUUIDs); err != nil {
		return false, err
	}
	now := r.p.Now()
	for _, in := range part.Invoices {
		r.mergeInvoice(in, now)
	}
	for _, li := range part.LineItems {
		if err := r.mergeLineItem(ctx, li); err != nil {
			return false, err
		}
	}
	for _, t := range part.Transactions {
		r.mergeTransaction(t)
	}
	changedInvoices := r.changedInvoices(now)
	changedSubs := r.deriveSubscriptions(changedInvoices, now)
	if len(changedInvoices) == 0 && len(changedSubs) == 0 {
		return false, nil
	}
	if err := r.saveIndex(ctx, changedInvoices, changedSubs); err != nil {
		return false, err
	}
	if err := r.p.step("index"); err != nil {
		return false, err
	}
	for i, err := range r.p.Store.PutSubscriptions(ctx, changedSubs) {
		if errors.Is(err, store.ErrOwnedElsewhere) {
			r.fail(&r.st.LineItems, changedSubs[i].ExternalID, "Subscription %q belongs to another customer", changedSubs[i].ExternalID)
		} else if err != nil {
			return false, err
		}
	}
	if err := r.p.step("subscriptions"); err != nil {
		return false, err
	}
	for i, err := range r.p.Store.PutInvoices(ctx, changedInvoices) {
		if errors.Is(err, store.ErrOwnedElsewhere) {
			r.fail(&r.st.Invoices, changedInvoices[i].ExternalID, "Invoice %q belongs to another customer", changedInvoices[i].ExternalID)
		} else if err != nil {
			return false, err
		}
		if err := r.p.step("invoice"); err != nil {
			return false, err
		}
	}
	return true, nil
}

// target returns the working copy of an invoice the customer owns, or nil.
func (r *applyRun) target(externalID string) *model.Invoice {
	uuid := model.InvoiceUUID(r.m.AccountID, r.m.DataSourceUUID, externalID)
	if inv, ok := r.invoices[uuid]; ok {
		return inv
	}
	if r.skip[uuid] {
		return nil
	}
	stored, ok := r.stored[uuid]
	if !ok {
		return nil
	}
	if stored.CustomerUUID != r.customer.UUID {
		r.skip[uuid] = true
		return nil
	}
	inv := cloneInvoice(stored)
	r.invoices[uuid] = &inv
	return &inv
}

func cloneInvoice(inv model.Invoice) model.Invoice {
	inv.LineItems = slices.Clone(inv.LineItems)
	inv.Transactions = slices.Clone(inv.Transactions)
	return inv
}

func (r *applyRun) mergeInvoice(in model.ImportInvoice, now time.Time) {
	uuid := model.InvoiceUUID(r.m.AccountID, r.m.DataSourceUUID, in.ExternalID)
	inv := r.target(in.ExternalID)
	if inv == nil && r.skip[uuid] {
		r.fail(&r.st.Invoices, in.ExternalID, "Invoice %q belongs to another customer", in.ExternalID)
		return
	}
	if inv == nil {
		inv = &model.Invoice{AccountID: r.m.AccountID, UUID: uuid, DataSourceUUID: r.m.DataSourceUUID,
			CustomerUUID: r.customer.UUID, ExternalID: in.ExternalID, CreatedAt: now,
			LineItems: []model.LineItem{}, Transactions: []model.Transaction{}}
		r.invoices[uuid] = inv
	}
	inv.CustomerExternalID = r.m.CustomerExternalID
	inv.Date, inv.DueDate, inv.Currency, inv.CollectionMethod = in.Date, in.DueDate, in.Currency, in.CollectionMethod
}

func (r *applyRun) mergeLineItem(ctx context.Context, in model.ImportLineItem) error {
	inv := r.target(in.InvoiceExternalID)
	id := in.ExternalID
	if id == "" {
		id = in.InvoiceExternalID
	}
	if inv == nil {
		r.fail(&r.st.LineItems, id, "Invoice %q of this line item does not exist for this customer", in.InvoiceExternalID)
		return nil
	}
	li := model.LineItem{Key: model.LineItemKey(in.ExternalID, in.Position), LineItemFields: in.LineItemFields}
	li.UUID = model.LineItemUUID(inv.UUID, li.Key)
	if in.PlanExternalID != "" && (in.Type == "subscription" || in.Type == "trial") {
		pl, err := r.plan(ctx, in.PlanExternalID)
		if err != nil {
			return err
		}
		if pl == nil {
			r.fail(&r.st.LineItems, id, "Plan %q does not exist in this data source", in.PlanExternalID)
			return nil
		}
		li.PlanUUID = pl.UUID
	}
	if in.SubscriptionExternalID != "" {
		li.SubscriptionUUID = model.SubscriptionUUID(r.m.AccountID, r.m.DataSourceUUID, in.SubscriptionExternalID)
		if sub, ok := r.subs[li.SubscriptionUUID]; ok && sub.CustomerUUID != r.customer.UUID {
			r.fail(&r.st.LineItems, id, "Subscription %q belongs to another customer", in.SubscriptionExternalID)
			return nil
		}
	}
	inv.UpsertLineItem(li)
	return nil
}

func (r *applyRun) mergeTransaction(in model.ImportTransaction) {
	inv := r.target(in.InvoiceExternalID)
	id := in.ExternalID
	if id == "" {
		id = in.InvoiceExternalID
	}
	if inv == nil {
		r.fail(&r.st.Transactions, id, "Invoice %q of this transaction does not exist for this customer", in.InvoiceExternalID)
		return
	}
	t := model.Transaction{Key: model.LineItemKey(in.ExternalID, in.Position), TransactionFields: in.TransactionFields}
	t.UUID = model.TransactionUUID(inv.UUID, t.Key)
	if t.Result == "successful" && model.ExcessPayment(inv.Total(), inv.Settled(t.Type, t.Key), t.AmountInCents) {
		r.fail(&r.st.Transactions, id, "The %ss of invoice %q would add up to more than its amount", t.Type, in.InvoiceExternalID)
		return
	}
	inv.UpsertTransaction(t)
}

// changedInvoices are the working invoices that differ from what is stored.
func (r *applyRun) changedInvoices(now time.Time) []model.Invoice {
	var out []model.Invoice
	for uuid, inv := range r.invoices {
		if old, ok := r.stored[uuid]; ok {
			inv.UpdatedAt = old.UpdatedAt
			if reflect.DeepEqual(normalize(old), normalize(*inv)) {
				continue
			}
		}
		inv.UpdatedAt = now
		out = append(out, *inv)
	}
	slices.SortFunc(out, func(a, b model.Invoice) int { return a.Date.Compare(b.Date) })
	return out
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

// deriveSubscriptions folds the subscription line items of the changed invoices into
// their subscriptions and returns those that changed.
func (r *applyRun) deriveSubscriptions(changed []model.Invoice, now time.Time) []model.Subscription {
	work := map[string]*model.Subscription{}
	var order []string
	for _, inv := range changed {
		for _, li := range inv.LineItems {
			if li.SubscriptionUUID == "" || li.PlanUUID == "" {
				continue
			}
			sub, ok := work[li.SubscriptionUUID]
			if !ok {
				s, found := r.subs[li.SubscriptionUUID]
				if !found {
					s = model.Subscription{AccountID: r.m.AccountID, UUID: li.SubscriptionUUID, DataSourceUUID: r.m.DataSourceUUID,
						CustomerUUID: r.customer.UUID, ExternalID: li.SubscriptionExternalID, CreatedAt: now}
				}
				s.CancellationDates = slices.Clone(s.CancellationDates)
				sub = &s
				work[li.SubscriptionUUID] = sub
				order = append(order, li.SubscriptionUUID)
			}
			sub.ApplyLineItem(li)
		}
	}
	var out []model.Subscription
	for _, uuid := range order {
		sub := work[uuid]
		if old, ok := r.subs[uuid]; ok && reflect.DeepEqual(old, *sub) {
			continue
		}
		sub.UpdatedAt = now
		out = append(out, *sub)
	}
	return out
}

// saveIndex adds the changed invoices, subscriptions and their plans to the
// customer's index, re-reading it when another writer changed it meanwhile.
func (r *applyRun) saveIndex(ctx context.Context, invs []model.Invoice, subs []model.Subscription) error {
	for attempt := 0; attempt < 5; attempt++ {
		old, err := r.p.Store.GetBillingIndex(ctx, r.m.AccountID, r.customer.UUID)
		if err != nil {
			return err
		}
		next := old.Clone()
		for _, inv := range invs {
			next.Invoices[inv.UUID] = inv.Date.Unix()
			for _, li := range inv.LineItems {
				if li.PlanUUID != "" {
					next.Plans[li.PlanUUID] = inv.DataSourceUUID
				}
			}
		}
		for _, s := range subs {
			if _, ok := next.Subscriptions[s.UUID]; !ok {
				next.Subscriptions[s.UUID] = s.CreatedAt.UnixNano()
			}
		}
		if reflect.DeepEqual(old, next) {
			return nil
		}
		err = r.p.Store.SaveBillingIndex(ctx, old, next)
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return errors.New("imports: the customer's index kept changing")
}
