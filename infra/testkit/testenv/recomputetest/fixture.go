// Package recomputetest seeds a customer's billing records straight through the import
// pipeline's store functions, for tests and benchmarks of the recomputation and of the
// per-customer metrics endpoints.
package recomputetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/recompute"
	"github.com/subsight/subsight/shared/store"
)

// At parses an RFC 3339 time.
func At(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TP returns a pointer to t.
func TP(t time.Time) *time.Time { return &t }

// Fixture is one account with a data source, a monthly plan and one customer, whose
// records are written straight through the import pipeline's store functions.
type Fixture struct {
	t      testing.TB
	Env    *testenv.Env
	D      *app.Deps // on a metered DynamoDB client, clock fixed by SetNow, real series
	Meter  *ddbmeter.Meter
	Acc    model.Account
	DS     model.DataSource
	Plan   model.Plan
	Cust   model.Customer
	idx    store.BillingIndex
	subs   map[string]model.Subscription
	Series *SeriesSpy
	Rec    *recompute.Recomputer
	now    time.Time
}

// SeriesSpy counts account-series calls, for tests that leave the series out. It
// writes only the recomputations' commits that go with the series (their new states).
type SeriesSpy struct {
	Applied, Removed int
	store            store.SeriesStorage
}

// ApplyBatch counts the customers of a call and commits their states (recompute.Series).
func (s *SeriesSpy) ApplyBatch(ctx context.Context, acc model.Account, _ int, changes []accountseries.Change) ([]store.SeriesShardPart, []error) {
	s.Applied += len(changes)
	errs := make([]error, len(changes))
	for i, c := range changes {
		if c.Commit.Kind == store.SeriesGuardNone {
			continue
		}
		conflicts, err := s.store.WriteSeriesBatch(ctx, acc.ID, 0, []store.SeriesRecordWrite{{CustomerUUID: c.Attrs.UUID, Guard: c.Commit}}, nil)
		if len(conflicts) > 0 {
			err = store.ErrSeriesChanged
		}
		errs[i] = err
	}
	return nil, errs
}

// Remove counts a call (recompute.Series).
func (s *SeriesSpy) Remove(context.Context, string, string) error {
	s.Removed++
	return nil
}

// New seeds an account, a data source, a monthly plan "Gold" and a customer "c1" at now.
// The recomputer uses the real account series when realSeries is set, else a spy.
func New(t testing.TB, now time.Time, realSeries bool) *Fixture {
	t.Helper()
	env := testenv.New(t)
	meter := ddbmeter.New()
	f := &Fixture{t: t, Env: env, Meter: meter, subs: map[string]model.Subscription{}, now: now}
	f.D = env.With(meter.Client(env.AWS), func() time.Time { return f.now })
	f.Series = &SeriesSpy{store: f.D.Store.Series()}
	d := f.D
	ctx := context.Background()
	f.Acc = env.NewAccount(t, "Metrics")
	f.DS = model.NewDataSource(f.Acc.ID, "billing", now)
	Must(t, d.Store.CreateDataSource(ctx, f.DS))
	f.Plan = model.Plan{AccountID: f.Acc.ID, UUID: model.NewPlanUUID(), DataSourceUUID: f.DS.UUID, System: f.DS.System,
		ExternalID: "gold", Name: "Gold", IntervalCount: 1, IntervalUnit: "month", CreatedAt: now}
	Must(t, d.Store.CreatePlan(ctx, f.Plan))
	f.Cust = model.Customer{AccountID: f.Acc.ID, UUID: model.NewCustomerUUID(), DataSourceUUID: f.DS.UUID,
		DataSourceUUIDs: []string{f.DS.UUID}, ExternalID: "c1", ExternalIDs: []string{"c1"}, Name: "Ann",
		Country: "US", Status: model.StatusNewLead, Tags: []string{}, Custom: map[string]model.AttrValue{},
		Currency: f.Acc.Currency, CreatedAt: now, UpdatedAt: now}
	id, err := d.Store.NextCustomerID(ctx, f.Acc.ID)
	Must(t, err)
	f.Cust.ID = id
	Must(t, d.Store.CreateCustomer(ctx, f.Cust))
	f.idx, err = d.Store.GetBillingIndex(ctx, f.Acc.ID, f.Cust.UUID)
	Must(t, err)
	f.Rec = recompute.New(d.Store, f.Series, d.Now)
	if realSeries {
		f.Rec = d.Workers().Recomputer()
	}
	return f
}

// Must fails the test on err.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Invoice describes one invoice of the fixture's customer.
type Invoice struct {
	Ext      string
	Currency string // default USD
	Start    time.Time
	Months   int // service period length, default 1
	Amount   int64
	Sub      string // subscription external id, default s1
	Paid     bool
	Failed   bool
	Cancel   *time.Time
}

// AddInvoices stores invoices (with their subscriptions and the customer's index) as
// the import worker would.
func (f *Fixture) AddInvoices(invs ...Invoice) {
	f.t.Helper()
	ctx := context.Background()
	var models []model.Invoice
	next := f.idx.Clone()
	for _, in := range invs {
		cur := in.Currency
		if cur == "" {
			cur = "USD"
		}
		sub := in.Sub
		if sub == "" {
			sub = "s1"
		}
		subUUID := model.SubscriptionUUID(f.Acc.ID, f.DS.UUID, sub)
		invUUID := model.InvoiceUUID(f.Acc.ID, f.DS.UUID, in.Ext)
		end := in.Start.AddDate(0, max(in.Months, 1), 0)
		li := model.LineItem{UUID: model.LineItemUUID(f.Acc.ID, f.DS.UUID, invUUID, "p:0"), Key: "p:0", SubscriptionUUID: subUUID,
			PlanUUID: f.Plan.UUID, LineItemFields: model.LineItemFields{Type: "subscription", SubscriptionExternalID: sub,
				ServicePeriodStart: TP(in.Start), ServicePeriodEnd: TP(end), AmountInCents: in.Amount, Quantity: 1,
				CancelledAt: in.Cancel}}
		inv := model.Invoice{AccountID: f.Acc.ID, UUID: invUUID, DataSourceUUID: f.DS.UUID, CustomerUUID: f.Cust.UUID,
			CustomerExternalID: f.Cust.ExternalID, ExternalID: in.Ext, Date: in.Start, DueDate: TP(in.Start.AddDate(0, 0, 7)),
			Currency: cur, LineItems: []model.LineItem{li}, CreatedAt: in.Start, UpdatedAt: in.Start}
		if in.Paid || in.Failed {
			result := "successful"
			if in.Failed {
				result = "failed"
			}
			inv.Transactions = []model.Transaction{{UUID: model.TransactionUUID(f.Acc.ID, f.DS.UUID, invUUID, "p:0"), Key: "p:0",
				TransactionFields: model.TransactionFields{Type: "payment", Result: result, Date: in.Start}}}
		}
		models = append(models, inv)
		s, ok := f.subs[subUUID]
		if !ok {
			s = model.Subscription{AccountID: f.Acc.ID, UUID: subUUID, DataSourceUUID: f.DS.UUID, CustomerUUID: f.Cust.UUID,
				ExternalID: sub, CreatedAt: in.Start, UpdatedAt: in.Start}
		}
		s.ApplyLineItem(li)
		f.subs[subUUID] = s
		next.Invoices[invUUID] = in.Start.Unix()
		next.Subscriptions[subUUID] = s.CreatedAt.UnixNano()
		next.Plans[f.Plan.UUID] = f.DS.UUID
	}
	for i := 0; i < len(models); i += 200 {
		for _, err := range f.D.Store.PutInvoices(ctx, models[i:min(i+200, len(models))]) {
			Must(f.t, err)
		}
	}
	var subs []model.Subscription
	for _, s := range f.subs {
		subs = append(subs, s)
	}
	for _, err := range f.D.Store.PutSubscriptions(ctx, subs) {
		Must(f.t, err)
	}
	Must(f.t, f.D.Store.SaveBillingIndex(ctx, f.idx, next))
	f.idx, _ = f.D.Store.GetBillingIndex(ctx, f.Acc.ID, f.Cust.UUID)
}

// Monthly returns n consecutive monthly paid invoices from start, the price rising by
// 100 cents each quarter.
func Monthly(n int, start time.Time) []Invoice {
	out := make([]Invoice, n)
	for i := range out {
		out[i] = Invoice{Ext: fmt.Sprintf("inv-%04d", i), Start: start.AddDate(0, i, 0), Amount: 1000 + int64(i/3)*100,
			Paid: true, Failed: i%3 == 2}
	}
	return out
}

// Run recomputes the customer and returns the outcome and what it cost.
func (f *Fixture) Run() (recompute.Outcome, ddbmeter.Snapshot) {
	f.t.Helper()
	f.Meter.Reset()
	out, err := f.Rec.Customer(context.Background(), f.Acc.ID, f.Cust.UUID)
	Must(f.t, err)
	return out, f.Meter.Snapshot()
}

// Customer reads the customer.
func (f *Fixture) Customer() model.Customer {
	f.t.Helper()
	c, err := f.D.Store.GetCustomer(context.Background(), f.Acc.ID, f.Cust.UUID)
	Must(f.t, err)
	return c
}

// SubscriptionRows reads the Metrics-API rows.
func (f *Fixture) SubscriptionRows() []store.MetricsSubscription {
	f.t.Helper()
	p, err := f.D.Store.ListMetricsSubscriptions(context.Background(), f.Acc.ID, f.Cust.UUID, 200, nil)
	Must(f.t, err)
	return p.Items
}

// SetNow moves the clock.
func (f *Fixture) SetNow(now time.Time) { f.now = now }

// AddCustomer creates another customer of the fixture's data source and makes it the
// one AddInvoices and Run work on.
func (f *Fixture) AddCustomer(externalID string) model.Customer {
	f.t.Helper()
	ctx := context.Background()
	now := f.D.Now()
	c := model.Customer{AccountID: f.Acc.ID, UUID: model.NewCustomerUUID(), DataSourceUUID: f.DS.UUID,
		DataSourceUUIDs: []string{f.DS.UUID}, ExternalID: externalID, ExternalIDs: []string{externalID},
		Systems: []string{f.DS.System}, Name: externalID, Country: "US", Status: model.StatusNewLead, Tags: []string{},
		Custom: map[string]model.AttrValue{}, Currency: f.Acc.Currency, CreatedAt: now, UpdatedAt: now}
	id, err := f.D.Store.NextCustomerID(ctx, f.Acc.ID)
	Must(f.t, err)
	c.ID = id
	Must(f.t, f.D.Store.CreateCustomer(ctx, c))
	f.Select(c)
	return c
}

// Select makes c the customer AddInvoices and Run work on.
func (f *Fixture) Select(c model.Customer) {
	f.t.Helper()
	f.Cust = c
	idx, err := f.D.Store.GetBillingIndex(context.Background(), f.Acc.ID, c.UUID)
	Must(f.t, err)
	f.idx = idx
	f.subs = map[string]model.Subscription{}
}
