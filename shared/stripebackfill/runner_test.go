package stripebackfill_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/stripemock"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripebackfill"
	"github.com/subsight/subsight/shared/stripesource"
	"github.com/subsight/subsight/shared/stripeworkers"
)

// bindingSealer seals by prefixing the binding: what it opens must have been sealed for
// the same account and data source.
type bindingSealer struct{}

func (bindingSealer) Seal(_ context.Context, p []byte, b secrets.Binding) ([]byte, error) {
	return append([]byte(b.AccountID+"|"+b.DataSourceUUID+"|"), p...), nil
}

func (bindingSealer) Open(_ context.Context, sealed []byte, b secrets.Binding) ([]byte, error) {
	prefix := []byte(b.AccountID + "|" + b.DataSourceUUID + "|")
	if !bytes.HasPrefix(sealed, prefix) {
		return nil, errors.New("sealed for another binding")
	}
	return sealed[len(prefix):], nil
}

// recordingApplier keeps what each Stripe customer was handed.
type recordingApplier struct {
	mu    sync.Mutex
	got   map[string]stripesource.Records
	calls int
}

func (a *recordingApplier) ApplyCustomer(_ context.Context, conn model.StripeConnection, id string, recs stripesource.Records) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.got == nil {
		a.got = map[string]stripesource.Records{}
	}
	a.got[id] = recs
	a.calls++
	return nil
}

// runnerStore is the backfills on the emulator's table and the connections in memory.
type runnerStore struct {
	store.StripeBackfills
	conns map[string]model.StripeConnection
}

func (s runnerStore) GetStripeConnection(_ context.Context, ds string) (model.StripeConnection, error) {
	c, ok := s.conns[ds]
	if !ok {
		return c, store.ErrNotFound
	}
	return c, nil
}

type backfillEnv struct {
	env     *testenv.Env
	pager   *stripemock.Pager
	applier *recordingApplier
	runner  *stripebackfill.Runner
	conns   map[string]model.StripeConnection
	account string
}

func newBackfillEnv(t *testing.T, items int) *backfillEnv {
	mock := stripemock.ForTest(t)
	env := testenv.New(t)
	e := &backfillEnv{env: env, pager: stripemock.NewPager(t, mock.URL, items, issued(false)), applier: &recordingApplier{},
		conns: map[string]model.StripeConnection{}, account: env.NewAccount(t, "Backfill").ID}
	e.runner = &stripebackfill.Runner{Store: runnerStore{env.Deps.Store, e.conns}, Sealer: bindingSealer{},
		Applier: e.applier, StepTime: time.Nanosecond, // one page of customers a step
		Options: stripebackfill.Options{APIBase: e.pager.URL(), PageSize: 2, CustomersPerPage: 2, Sleep: noWait}}
	return e
}

// connect stores a connection of a new data source with key ("" for none) and returns
// the data source's uuid.
func (e *backfillEnv) connect(t *testing.T, key string) string {
	ds := e.env.NewDataSource(t, e.account, "Stripe").UUID
	c := model.StripeConnection{AccountID: e.account, DataSourceUUID: ds, Settings: model.DefaultStripeSettings()}
	if key != "" {
		c.SealedAPIKey, _ = bindingSealer{}.Seal(context.Background(), []byte(key), secrets.Binding{AccountID: e.account, DataSourceUUID: ds})
	}
	e.conns[ds] = c
	return ds
}

// drain runs the Stripe backfill queue, where the backfill's steps are, to its end.
func (e *backfillEnv) drain(t *testing.T) {
	testenv.Drain(t, e.env.Deps, e.env.Resources.Queues["StripeBackfillQueue"].URL,
		stripeworkers.RunBackfills(e.env.Workers, e.runner))
}

// start queues a backfill of ds and runs its job to the end.
func (e *backfillEnv) start(t *testing.T, ds string) model.StripeBackfill {
	ctx := context.Background()
	b := model.StripeBackfill{AccountID: e.account, DataSourceUUID: ds, ID: model.NewStripeBackfillID(), Status: model.BackfillQueued,
		RequestedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
	if err := e.env.Deps.Store.StartStripeBackfill(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := e.env.Workers.StripeSteps.Send(ctx, jobs.Backfill(e.account, ds, b.ID)); err != nil {
		t.Fatal(err)
	}
	e.drain(t)
	got, err := e.env.Deps.Store.GetStripeBackfill(ctx, e.account, ds)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBackfillInSteps: five customers, two a page, one page a step: three steps, each
// saving its position, the last one marking the backfill done with every customer's
// records handed to the applier and the counts of what was read.
func TestBackfillInSteps(t *testing.T) {
	e := newBackfillEnv(t, 5)
	ds := e.connect(t, stripemock.Key)
	b := e.start(t, ds)
	if b.Status != model.BackfillDone || b.LastError != "" {
		t.Fatalf("status %s (%q), want done", b.Status, b.LastError)
	}
	if b.Pages != 3 || b.StartedAt.IsZero() || b.FinishedAt.Before(b.StartedAt) {
		t.Errorf("pages %d, started %v, finished %v", b.Pages, b.StartedAt, b.FinishedAt)
	}
	want := model.StripeBackfillCounts{Prices: 5, Customers: 5, Subscriptions: 25, Invoices: 25, LineItems: 25, InvoicePayments: 25}
	if b.Counts != want {
		t.Errorf("counts %+v, want %+v", b.Counts, want)
	}
	if b.Requests != int64(e.pager.Total()) {
		t.Errorf("requests %d, the mock received %d", b.Requests, e.pager.Total())
	}
	// Every step reads the prices (three pages of two) again: three steps.
	if got := e.pager.Requests()["/v1/prices"]; got != 3*3 {
		t.Errorf("prices read %d times, want 9 (three steps)", got)
	}
	if len(e.applier.got) != 5 || e.applier.calls != 5 {
		t.Errorf("applier got %d customers in %d calls, want 5 in 5", len(e.applier.got), e.applier.calls)
	}
	for id, recs := range e.applier.got {
		if len(recs.Customers) != 1 || recs.Customers[0].ExternalID != id || len(recs.Invoices) != 5 {
			t.Errorf("%s: %d customers, %d invoices", id, len(recs.Customers), len(recs.Invoices))
		}
	}
	if refused := e.pager.Refused(); len(refused) > 0 {
		t.Errorf("stripe-mock refused: %v", refused)
	}

	// The job delivered again finds its backfill done and reads nothing.
	before := e.pager.Total()
	if err := e.env.Workers.StripeSteps.Send(context.Background(), jobs.Continue(jobs.Backfill(e.account, ds, b.ID), "")); err != nil {
		t.Fatal(err)
	}
	e.drain(t)
	if e.pager.Total() != before {
		t.Errorf("a finished backfill's job read Stripe again")
	}
}

// TestBackfillFails: what no retry changes fails the backfill at once, with a message
// for the client.
func TestBackfillFails(t *testing.T) {
	e := newBackfillEnv(t, 1)
	tests := []struct {
		name, key, want string
	}{
		{"no API key", "", "no API key"},
		{"key refused", "bad_key", "refused the API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := e.start(t, e.connect(t, tt.key))
			if b.Status != model.BackfillFailed || !strings.Contains(b.LastError, tt.want) || b.FinishedAt.IsZero() {
				t.Errorf("status %s, error %q, finished %v; want failed with %q", b.Status, b.LastError, b.FinishedAt, tt.want)
			}
		})
	}
	t.Run("disconnected", func(t *testing.T) {
		ds := e.connect(t, stripemock.Key)
		delete(e.conns, ds)
		if b := e.start(t, ds); b.Status != model.BackfillFailed || !strings.Contains(b.LastError, "no longer connected") {
			t.Errorf("status %s, error %q", b.Status, b.LastError)
		}
	})
}
