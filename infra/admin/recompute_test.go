package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
)

type recordingJobs struct {
	mu   sync.Mutex
	sent []jobs.Message
}

func (r *recordingJobs) Send(_ context.Context, m jobs.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, m)
	return nil
}

func (r *recordingJobs) take() []jobs.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

func addCustomers(t *testing.T, te *testenv.Env, accountID string, n int) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for range n {
		id, err := te.Deps.Store.NextCustomerID(ctx, accountID)
		if err != nil {
			t.Fatal(err)
		}
		uuid := model.NewCustomerUUID()
		ds := "ds_" + uuid
		c := model.Customer{AccountID: accountID, ID: id, UUID: uuid, DataSourceUUID: ds, DataSourceUUIDs: []string{ds},
			ExternalID: "x-" + uuid, ExternalIDs: []string{"x-" + uuid}, Systems: []string{"Custom"}, Name: uuid,
			Status: model.StatusNewLead, Tags: []string{}, BillingSystemType: model.BillingSystemCustom, Currency: "USD",
			CreatedAt: te.Deps.Now(), UpdatedAt: te.Deps.Now()}
		if err := te.Deps.Store.CreateCustomer(ctx, c); err != nil {
			t.Fatal(err)
		}
		out = append(out, uuid)
	}
	slices.Sort(out)
	return out
}

// TestAccountWideChangesRecomputeEveryCustomer: set-setting and load-fx-rates enqueue
// one recompute_customer job per customer of the account (paging through the
// listing), none for another account's customers, a new nonce per run; without a jobs
// queue they refuse before writing anything.
func TestAccountWideChangesRecomputeEveryCustomer(t *testing.T) {
	te := testenv.New(t)
	ctx := context.Background()
	acc, other := te.NewAccount(t, "Recompute"), te.NewAccount(t, "Other")
	customers := addCustomers(t, te, acc.ID, 5)
	addCustomers(t, te, other.ID, 1)
	defer func(n int) { customersPerPage = n }(customersPerPage)
	customersPerPage = 2

	rates := filepath.Join(t.TempDir(), "rates.csv")
	if err := os.WriteFile(rates, []byte("2024-01-01,EUR,1.1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &recordingJobs{}
	e := env{store: te.Deps.Store, jobs: rec}
	commands := []struct {
		name string
		args []string
	}{
		{"set-setting", []string{"-account", acc.ID, "-setting", "churn_when_zero_mrr", "-value", "true"}},
		{"set-setting", []string{"-account", acc.ID, "-setting", "churn_when_zero_mrr", "-value", "false"}},
		{"load-fx-rates", []string{"-account", acc.ID, "-file", rates}},
	}
	nonces := map[string]bool{}
	for _, c := range commands {
		out, err := runCmd(t, e, c.name, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if out["recomputations"] != float64(len(customers)) {
			t.Errorf("%s printed %v", c.name, out)
		}
		sent := rec.take()
		var got []string
		for _, m := range sent {
			if m.Type != jobs.RecomputeCustomer || m.AccountID != acc.ID || m.Nonce != sent[0].Nonce {
				t.Errorf("%s sent %+v", c.name, m)
			}
			got = append(got, m.CustomerUUID)
		}
		slices.Sort(got)
		if !slices.Equal(got, customers) {
			t.Errorf("%s recomputed %v, want %v", c.name, got, customers)
		}
		if len(sent) > 0 {
			if nonces[sent[0].Nonce] {
				t.Errorf("%s reused nonce %s: SQS would drop its jobs", c.name, sent[0].Nonce)
			}
			nonces[sent[0].Nonce] = true
		}
	}

	if _, err := runCmd(t, e, "set-setting", "-account", acc.ID, "-setting", "churn_when_zero_mrr", "-value", "maybe"); err == nil {
		t.Error("bad value accepted")
	}
	noQueue := env{store: te.Deps.Store}
	if _, err := runCmd(t, noQueue, "set-setting", "-account", acc.ID, "-setting", "churn_when_zero_mrr", "-value", "true"); !errors.Is(err, errNoJobsQueue) {
		t.Errorf("set-setting without a queue: %v", err)
	}
	if got, _ := te.Deps.Store.GetAccount(ctx, acc.ID); got.Settings.ChurnWhenZeroMRR {
		t.Error("setting written without a jobs queue")
	}
	if _, err := runCmd(t, noQueue, "load-fx-rates", "-account", other.ID, "-file", rates); !errors.Is(err, errNoJobsQueue) {
		t.Errorf("load-fx-rates without a queue: %v", err)
	}
	if got, err := te.Deps.Store.FXRatesBetween(ctx, other.ID, "EUR", "2024-01-01", "2024-01-31"); err != nil || len(got) != 0 {
		t.Errorf("rates written without a jobs queue: %v %v", got, err)
	}
	if sent := rec.take(); len(sent) != 0 {
		t.Errorf("refused commands sent %+v", sent)
	}
}
