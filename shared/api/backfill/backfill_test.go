package backfill_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
)

// connect stores a Stripe connection of a new data source of the account, with a sealed
// API key or without one.
func connect(t *testing.T, env *testenv.Env, accountID string, withKey bool) string {
	t.Helper()
	ds := env.NewDataSource(t, accountID, "Stripe").UUID
	c := model.StripeConnection{AccountID: accountID, DataSourceUUID: ds, SealedWebhookSecret: []byte("sealed-whsec"),
		Settings: model.DefaultStripeSettings(), ConnectedAt: env.Deps.Now(), UpdatedAt: env.Deps.Now()}
	if withKey {
		c.SealedAPIKey, c.APIKeyLast4 = []byte("sealed-rk"), "abcd"
	}
	if err := env.Deps.Store.PutStripeConnection(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestStripeBackfillEndpoints: through API Gateway events, a backfill starts (202, a
// job on the Stripe backfill queue) once per data source at a time (409), only for a data source of
// the caller's account (404 for another's, the same as for an unknown one) that is
// connected to Stripe (404) with an API key (422); GET shows the latest.
func TestStripeBackfillEndpoints(t *testing.T) {
	env := testenv.New(t)
	d := env.API
	acc, intruder := env.NewAccount(t, "Backfilled").ID, env.NewAccount(t, "Intruder").ID
	ds := connect(t, env, acc, true)
	noKey := connect(t, env, acc, false)
	plain := env.NewDataSource(t, acc, "Import API").UUID
	call := func(op, account, uuid string) (int, map[string]any) {
		return apitest.Do(t, d, op, apigwtest.Call{PathParams: map[string]string{"data_source_uuid": uuid}, AccountID: account})
	}

	errs := []struct {
		name, op, account, ds string
		status                int
		message               string
	}{
		{"another account's data source", "StartStripeBackfill", intruder, ds, http.StatusNotFound, "Data source not found"},
		{"another account's data source, GET", "GetStripeBackfill", intruder, ds, http.StatusNotFound, "Data source not found"},
		{"a data source not connected", "StartStripeBackfill", acc, plain, http.StatusNotFound, "not connected to Stripe"},
		{"a connection without API key", "StartStripeBackfill", acc, noKey, http.StatusUnprocessableEntity, "no API key"},
		{"no backfill yet", "GetStripeBackfill", acc, ds, http.StatusNotFound, "no Stripe backfill yet"},
		{"unknown data source", "StartStripeBackfill", acc, "ds_00000000-0000-0000-0000-000000000000", http.StatusNotFound, "Data source not found"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			status, body := call(tt.op, tt.account, tt.ds)
			msg, _ := body["error"].(string)
			if status != tt.status || !strings.Contains(msg, tt.message) {
				t.Errorf("%d %v, want %d with %q", status, body, tt.status, tt.message)
			}
		})
	}

	status, started := call("StartStripeBackfill", acc, ds)
	if status != http.StatusAccepted || started["status"] != "queued" || started["data_source_uuid"] != ds ||
		started["started_at"] != nil || started["last_error"] != nil {
		t.Fatalf("start: %d %v", status, started)
	}
	if status, body := call("StartStripeBackfill", acc, ds); status != http.StatusConflict ||
		!strings.Contains(body["error"].(string), "already queued or running") {
		t.Errorf("second start: %d %v, want 409", status, body)
	}
	status, got := call("GetStripeBackfill", acc, ds)
	if status != http.StatusOK || got["id"] != started["id"] || got["status"] != "queued" {
		t.Errorf("get: %d %v, want the queued backfill %v", status, got, started["id"])
	}
	if jobs := queuedJobs(t, env); len(jobs) != 1 || !strings.Contains(jobs[0], `"type":"backfill_stripe"`) ||
		!strings.Contains(jobs[0], started["id"].(string)) {
		t.Errorf("jobs queued: %v, want the backfill's", jobs)
	}

	// Once finished, the next request starts a new backfill.
	b, err := env.Deps.Store.GetStripeBackfill(context.Background(), acc, ds)
	if err != nil {
		t.Fatal(err)
	}
	b.Status, b.FinishedAt = model.BackfillDone, time.Now().UTC()
	if err := env.Deps.Store.SaveStripeBackfill(context.Background(), b, b.Pages); err != nil {
		t.Fatal(err)
	}
	if status, again := call("StartStripeBackfill", acc, ds); status != http.StatusAccepted || again["id"] == started["id"] {
		t.Errorf("start after done: %d %v, want a new backfill", status, again)
	}
}

// TestStripeBackfillsPerAccount: an account has at most two backfills queued or
// running; a third data source waits (409) until one is done. Another account is not
// held back by them.
func TestStripeBackfillsPerAccount(t *testing.T) {
	env := testenv.New(t)
	acc, other := env.NewAccount(t, "Busy").ID, env.NewAccount(t, "Other").ID
	start := func(account, ds string) int {
		status, _ := apitest.Do(t, env.API, "StartStripeBackfill", apigwtest.Call{
			PathParams: map[string]string{"data_source_uuid": ds}, AccountID: account})
		return status
	}
	for i := range 2 {
		if s := start(acc, connect(t, env, acc, true)); s != http.StatusAccepted {
			t.Fatalf("backfill %d: %d", i+1, s)
		}
	}
	if s := start(acc, connect(t, env, acc, true)); s != http.StatusConflict {
		t.Errorf("a third backfill of the account: %d, want 409", s)
	}
	if s := start(other, connect(t, env, other, true)); s != http.StatusAccepted {
		t.Errorf("another account's backfill: %d, want 202", s)
	}
}

// queuedJobs receives the bodies of the messages waiting in the Stripe backfill queue,
// where the backfills' steps run.
func queuedJobs(t *testing.T, env *testenv.Env) []string {
	t.Helper()
	out, err := env.Deps.Clients.SQS.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(env.Resources.Queues["StripeBackfillQueue"].URL), MaxNumberOfMessages: 10})
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, m := range out.Messages {
		bodies = append(bodies, aws.ToString(m.Body))
	}
	return bodies
}
