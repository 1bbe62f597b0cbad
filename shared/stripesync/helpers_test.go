package stripesync_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
	"github.com/subsight/subsight/shared/stripesync"
	"github.com/subsight/subsight/shared/workers"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var (
	day = stripetest.Day
	// now is the clock of the tests' environment: after every scenario.
	now = time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC)
)

// newEnv is an environment whose clock stands at now.
func newEnv(t *testing.T) *testenv.Env {
	t.Helper()
	env := testenv.New(t)
	env.Deps = env.With(nil, func() time.Time { return now })
	env.API, env.Workers = env.Deps.API(), env.Deps.Workers()
	return env
}

// newSync is a Sync on deps, without a Stripe reader.
func newSync(d *app.Deps) *stripesync.Sync {
	return stripesync.New(stripesync.Config{Pipeline: d.Imports, Store: d.Store, Jobs: d.Jobs, Now: d.Now, Purger: d.Workers()})
}

// connect is a Stripe connection of a new account's new data source.
func connect(t *testing.T, env *testenv.Env, name string) model.StripeConnection {
	t.Helper()
	acc := env.NewAccount(t, name)
	ds := env.NewDataSource(t, acc.ID, "Stripe")
	conn := model.StripeConnection{AccountID: acc.ID, DataSourceUUID: ds.UUID, Settings: model.DefaultStripeSettings(),
		SealedWebhookSecret: []byte{1}}
	// Stored, as a connection is: the recomputation reads the source's settings from it.
	if err := env.Deps.Store.PutStripeConnection(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	return conn
}

// history is a Stripe account's events in the order Stripe creates them: each event is
// created on its day, a second after the one before.
type history struct {
	events []stripe.Event
}

func (h *history) add(kind stripe.EventType, on string, object any, previous map[string]any) {
	n := len(h.events)
	h.events = append(h.events, stripetest.Event(fmt.Sprintf("evt_%03d", n), kind, day(on)+int64(n), object, previous))
}

// subscribe adds customer cus_1 and its subscription sub_1, created on on, one item per
// price (si_1, si_2, ... unless items names them).
func (h *history) subscribe(on string, prices []*stripe.Price, items ...string) *stripe.Subscription {
	h.add(stripe.EventTypeCustomerCreated, on, &stripe.Customer{ID: "cus_1", Name: "Ada Lovelace", Email: "ada@example.com",
		Created: day(on), Address: &stripe.Address{Country: "GB", City: "London"}}, nil)
	if len(items) == 0 {
		for i := range prices {
			items = append(items, fmt.Sprintf("si_%d", i+1))
		}
	}
	s := stripetest.Subscription("sub_1", items...)
	s.Created, s.StartDate = day(on), day(on)
	for i, p := range prices {
		s.Items.Data[i].Price = p
		s.Items.Data[i].Quantity = 1
	}
	h.add(stripe.EventTypeCustomerSubscriptionCreated, on, s, nil)
	return s
}

// pay adds an invoice's finalization, payment and invoice payment, all on the day it
// was finalized, paid through payment intent pi_<invoice id>.
func (h *history) pay(inv *stripe.Invoice) {
	on := time.Unix(inv.StatusTransitions.FinalizedAt, 0).UTC().Format(time.DateOnly)
	open := *inv
	open.Status, open.AmountPaid, open.AmountRemaining, open.Payments = stripe.InvoiceStatusOpen, 0, inv.AmountDue, nil
	h.add(stripe.EventTypeInvoiceFinalized, on, &open, nil)
	paidOn := on
	if p := inv.Payments.Data[0].StatusTransitions.PaidAt; p != 0 {
		paidOn = time.Unix(p, 0).UTC().Format(time.DateOnly)
	}
	inv.Payments.Data[0].Payment = &stripe.InvoicePaymentPayment{Type: "payment_intent",
		PaymentIntent: &stripe.PaymentIntent{ID: "pi_" + inv.ID}}
	h.add(stripe.EventTypeInvoicePaid, paidOn, inv, nil)
	p := *inv.Payments.Data[0]
	p.Invoice = &stripe.Invoice{ID: inv.ID}
	h.add(stripe.EventTypeInvoicePaymentPaid, paidOn, &p, nil)
}

// monthly adds paid monthly invoices of item si_1 at price for n months from from.
func (h *history) monthly(from string, n int, price string, amount int64) {
	start := stripetest.At(from)
	for i := range n {
		s, e := start.AddDate(0, i, 0).Format(time.DateOnly), start.AddDate(0, i+1, 0).Format(time.DateOnly)
		h.pay(stripetest.PaidInvoice("in_"+s, s, stripetest.SubLine("il_"+s, "sub_1", "si_1", price, amount, 1, s, e)))
	}
}

// deliver applies events as the webhook queue delivers them: one at a time, an event
// that waits for another (ErrNotYet) goes to the back of the queue.
func deliver(s *stripesync.Sync, conn model.StripeConnection, events []stripe.Event) error {
	queue := append([]stripe.Event(nil), events...)
	for attempts := 0; len(queue) > 0; attempts++ {
		if attempts > 10*len(events) {
			return fmt.Errorf("events still waiting: %d", len(queue))
		}
		ev := queue[0]
		queue = queue[1:]
		err := s.ApplyEvent(context.Background(), conn, ev)
		switch {
		case errors.Is(err, stripesync.ErrNotYet):
			queue = append(queue, ev)
		case err != nil:
			return fmt.Errorf("%s %s: %w", ev.ID, ev.Type, err)
		}
	}
	return nil
}

// coalescing keeps the recomputations the events ask for, one per customer, until
// flush sends them: the test then runs each customer's once, not once per event.
type coalescing struct {
	to    jobs.Sender
	mu    sync.Mutex
	asked map[string]jobs.Message
}

func (c *coalescing) Send(_ context.Context, m jobs.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked[m.AccountID+"/"+m.CustomerUUID] = m
	return nil
}

func (c *coalescing) SendBatch(ctx context.Context, ms []jobs.Message) error {
	for _, m := range ms {
		if err := c.Send(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (c *coalescing) flush(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.to.SendBatch(context.Background(), slices.Collect(maps.Values(c.asked))); err != nil {
		t.Fatal(err)
	}
	c.asked = map[string]jobs.Message{}
}

// drain runs the recomputations the events asked for.
func drain(t *testing.T, env *testenv.Env) {
	t.Helper()
	env.DrainJobs(t, workers.Jobs(env.Workers))
}

// mrrOn is the account's MRR on a day, from the Metrics API.
func mrrOn(t *testing.T, env *testenv.Env, accountID, on string) int64 {
	t.Helper()
	status, body := apitest.Do(t, env.API, "MetricsMrr", apigwtest.Call{AccountID: accountID,
		Query: apitest.Query("start-date", on, "end-date", on, "interval", "day")})
	if status != http.StatusOK {
		t.Fatalf("MetricsMrr: %d %v", status, body)
	}
	mrr := apitest.Field(body, "mrr")
	if len(mrr) != 1 {
		t.Fatalf("MetricsMrr on %s: %v", on, body)
	}
	return int64(mrr[0].(float64))
}

// invoice is a stored invoice of the connection's data source, by Stripe id.
func invoice(t *testing.T, env *testenv.Env, conn model.StripeConnection, id string) model.Invoice {
	t.Helper()
	inv, err := env.Deps.Store.GetInvoice(context.Background(), conn.AccountID, model.InvoiceUUID(conn.AccountID, conn.DataSourceUUID, id))
	if err != nil {
		t.Fatalf("invoice %s: %v", id, err)
	}
	return inv
}

// customer is the stored customer of a Stripe customer.
func customer(t *testing.T, env *testenv.Env, conn model.StripeConnection, id string) model.Customer {
	t.Helper()
	ctx := context.Background()
	uuid, err := env.Deps.Store.CustomerUUIDByExternalID(ctx, conn.AccountID, conn.DataSourceUUID, id)
	if err != nil {
		t.Fatalf("customer %s: %v", id, err)
	}
	c, err := env.Deps.Store.GetCustomer(ctx, conn.AccountID, uuid)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// projection is what the events stored for cus_1, without the account's own ids: its
// customer fields and its invoices with their lines and transactions, by Stripe id.
func projection(t *testing.T, env *testenv.Env, conn model.StripeConnection, events []stripe.Event) string {
	t.Helper()
	c := customer(t, env, conn, "cus_1")
	type line struct {
		ID, Type, Sub, Set string
		Amount, Quantity   int64
		Prorated           bool
		From, To           *time.Time
	}
	type tx struct {
		ID, Type, Result string
		Amount           *int64
		Date             time.Time
	}
	type inv struct {
		ID, Status, Currency string
		Date                 time.Time
		Lines                []line
		Transactions         []tx
	}
	out := struct {
		Name, Email, Country string
		Tags                 []string
		Lead, Trial          *time.Time
		Invoices             []inv
	}{Name: c.Name, Email: c.Email, Country: c.Country, Tags: c.Tags, Lead: c.LeadCreatedAt, Trial: c.FreeTrialStartedAt}
	seen := map[string]bool{}
	var ids []string
	for _, ev := range events {
		if strings.HasPrefix(string(ev.Type), "invoice.") {
			var o struct{ ID string }
			if err := json.Unmarshal(ev.Data.Raw, &o); err == nil && !seen[o.ID] {
				seen[o.ID] = true
				ids = append(ids, o.ID)
			}
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		stored := invoice(t, env, conn, id)
		i := inv{ID: id, Status: stored.Status, Currency: stored.Currency, Date: stored.Date.UTC()}
		for _, li := range stored.LineItems {
			i.Lines = append(i.Lines, line{ID: li.ExternalID, Type: li.Type, Sub: li.SubscriptionExternalID, Set: li.SubscriptionSetExternalID,
				Amount: li.AmountInCents, Quantity: li.Quantity, Prorated: li.Prorated, From: li.ServicePeriodStart, To: li.ServicePeriodEnd})
		}
		sort.Slice(i.Lines, func(a, b int) bool { return i.Lines[a].ID < i.Lines[b].ID })
		for _, tr := range stored.Transactions {
			i.Transactions = append(i.Transactions, tx{ID: tr.ExternalID, Type: tr.Type, Result: tr.Result, Amount: tr.AmountInCents, Date: tr.Date.UTC()})
		}
		sort.Slice(i.Transactions, func(a, b int) bool { return i.Transactions[a].ID < i.Transactions[b].ID })
		out.Invoices = append(out.Invoices, i)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
