package stripeconn_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/workers"
)

// TestDisconnectRecomputesTheSource: a customer whose only invoice is unpaid is a lead
// under a Stripe source's default settings (a subscription is created by a paid
// invoice); disconnecting removes the settings and recomputes the source's customers,
// so the invoice counts once issued, as any source without settings has it.
func TestDisconnectRecomputesTheSource(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-01-15T00:00:00Z"), true)
	f.AddInvoices(recomputetest.Invoice{Ext: "inv-1", Start: recomputetest.At("2024-01-01T00:00:00Z"), Amount: 1000})
	d := f.D.API()
	steps := []struct {
		name   string
		op     string
		body   any
		status int
		mrr    int64
		cust   string
	}{
		{"connected", "PutStripeConnection", map[string]any{"webhook_secret": webhookSecret}, http.StatusOK, 0, model.StatusNewLead},
		{"disconnected", "DeleteStripeConnection", nil, http.StatusNoContent, 1000, model.StatusActive},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if status, body := connection(t, d, s.op, f.Acc.ID, f.DS.UUID, s.body); status != s.status {
				t.Fatalf("%d %v, want %d", status, body, s.status)
			}
			f.Env.DrainJobs(t, workers.Jobs(f.D.Workers()))
			if c := f.Customer(); c.MRR != s.mrr || c.Status != s.cust {
				t.Errorf("customer %s with MRR %d, want %s with %d", c.Status, c.MRR, s.cust, s.mrr)
			}
		})
	}
}

// TestDisconnectWithoutItsRecomputation: a DELETE whose recomputation cannot be queued
// puts the connection back, settings and all, and answers 500, so that the client's
// retry disconnects again and queues it then; a DELETE that removes nothing queues
// nothing. A source being deleted is disconnected
// without a recomputation: its purge removes its customers.
func TestDisconnectWithoutItsRecomputation(t *testing.T) {
	env := testenv.New(t)
	acc, ds := connected(t, env)
	if status, body := connection(t, env.API, "UpdateStripeSettings", acc, ds, map[string]any{"refund_handling": "refund_full_only"}); status != http.StatusOK {
		t.Fatalf("PATCH: %d %v", status, body)
	}
	sourceJobs(t, env, acc, ds)
	before := storedSettings(t, env, acc, ds)
	broken := &api.Deps{Store: env.API.Store, Secrets: env.API.Secrets, Now: env.API.Now, Jobs: failingJobs{}}

	deleting := env.NewDataSource(t, acc, "Stripe, being deleted")
	if status, body := apitest.Do(t, env.API, "DeleteDataSource", apigwtest.Call{AccountID: acc,
		PathParams: map[string]string{"uuid": deleting.UUID}}); status != http.StatusNoContent {
		t.Fatalf("DELETE of the data source: %d %v", status, body)
	}
	// Connected in the moment before its purge reaches the connection.
	if err := env.Deps.Store.PutStripeConnection(context.Background(), model.StripeConnection{AccountID: acc,
		DataSourceUUID: deleting.UUID, SealedWebhookSecret: []byte{1}, Settings: model.DefaultStripeSettings()}); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name      string
		d         *api.Deps
		ds        string
		status    int
		jobs      int
		connected bool
	}{
		{"the job cannot be sent", broken, ds, http.StatusInternalServerError, 0, true},
		{"retried", env.API, ds, http.StatusNoContent, 1, false},
		{"not connected any more", env.API, ds, http.StatusNoContent, 0, false},
		{"a source being deleted", env.API, deleting.UUID, http.StatusNoContent, 0, false},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if status, body := connection(t, s.d, "DeleteStripeConnection", acc, s.ds, nil); status != s.status {
				t.Fatalf("%d %v, want %d", status, body, s.status)
			}
			if n := sourceJobs(t, env, acc, s.ds); n != s.jobs {
				t.Errorf("%d recomputations of the source queued, want %d", n, s.jobs)
			}
			_, err := env.Deps.Store.GetStripeConnection(context.Background(), s.ds)
			if got := err == nil; got != s.connected {
				t.Fatalf("connected: %v (%v), want %v", got, err, s.connected)
			}
			if s.connected && !equalJSON(storedSettings(t, env, acc, s.ds), before) {
				t.Errorf("settings put back %v, want %v", storedSettings(t, env, acc, s.ds), before)
			}
		})
	}
}

// failingJobs is a jobs queue that takes nothing.
type failingJobs struct{}

func (failingJobs) Send(context.Context, jobs.Message) error {
	return errors.New("the jobs queue is unavailable")
}

func (failingJobs) SendBatch(context.Context, []jobs.Message) error {
	return errors.New("the jobs queue is unavailable")
}
