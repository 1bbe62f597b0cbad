//go:build linux

package rie

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/stripegen"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/stripewebhook"
)

func init() {
	parityCases["ReceiveStripeWebhookFunction"] = parityCase{run: stripeWebhookCase, ownResources: true}
	parityCases["StripeEventWorkerFunction"] = parityCase{run: stripeEventWorkerCase, ownResources: true}
	parityCases["StripeBackfillWorkerFunction"] = parityCase{run: stripeBackfillWorkerCase, ownResources: true,
		vars: emptyStripeAccount}
}

const paritySecret = "whsec_parity_0123456789abcdef"

// stripeConnected is a new account's data source connected to Stripe with paritySecret.
func stripeConnected(t *testing.T, env *testenv.Env) (model.Account, string) {
	t.Helper()
	acc := env.NewAccount(t, "Parity Stripe Inc")
	ds := env.NewDataSource(t, acc.ID, "Stripe billing").UUID
	sealed, err := env.Deps.Secrets.Seal(ctx, []byte(paritySecret), secrets.Binding{AccountID: acc.ID, DataSourceUUID: ds})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := env.Deps.Store.PutStripeConnection(ctx, model.StripeConnection{AccountID: acc.ID, DataSourceUUID: ds,
		SealedWebhookSecret: sealed, Settings: model.DefaultStripeSettings(), ConnectedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	return acc, ds
}

// stripeWebhookCase: the webhook, which API Gateway calls without the authorizer, takes
// a delivery signed with the data source's secret (the connection read, the secret
// opened with the stack's key, the body put under stripe/, one message sent) and
// refuses one signed with another secret.
func stripeWebhookCase(t *testing.T, fn *function) {
	env := fn.env
	acc, ds := stripeConnected(t, env)
	now := time.Now().UTC()
	body, err := stripegen.Event("evt_parity", stripe.EventTypeCustomerCreated, now,
		&stripe.Customer{ID: "cus_parity", Object: "customer"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	post := func(secret string) events.APIGatewayV2HTTPResponse {
		t.Helper()
		ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "POST /stripe/webhooks/{data_source_uuid}",
			RawPath: "/stripe/webhooks/" + ds, Body: string(body), PathParameters: map[string]string{"data_source_uuid": ds},
			Headers: map[string]string{"content-type": "application/json", "stripe-signature": stripegen.Sign(body, secret, now)},
			RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "parity",
				HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "POST", Path: "/stripe/webhooks/" + ds}}}
		var res events.APIGatewayV2HTTPResponse
		if raw := fn.invoke(t, ev); json.Unmarshal(raw, &res) != nil || res.StatusCode == 0 {
			t.Fatalf("not an API Gateway answer: %s", raw)
		}
		return res
	}
	if res := post("whsec_another_source_0123456789"); res.StatusCode != 400 {
		t.Errorf("another secret: %d %s", res.StatusCode, res.Body)
	}
	if res := post(paritySecret); res.StatusCode != 200 || res.Body != `{"received":true}` {
		t.Fatalf("signed delivery: %d %s", res.StatusCode, res.Body)
	}
	// An event larger than a message carries is put in the bucket; a small one is not.
	body, err = stripegen.Event("evt_parity_large", stripe.EventTypeCustomerCreated, now,
		&stripe.Customer{ID: "cus_parity_large", Object: "customer", Description: strings.Repeat("x", stripewebhook.InlineLimit)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := post(paritySecret); res.StatusCode != 200 {
		t.Fatalf("signed large delivery: %d %s", res.StatusCode, res.Body)
	}
	if stored, err := env.Deps.Files.Get(ctx, stripewebhook.EventKey(acc.ID, ds, "evt_parity_large")); err != nil || string(stored) != string(body) {
		t.Errorf("stored large event: %v", err)
	}
	if _, err := env.Deps.Files.Get(ctx, stripewebhook.EventKey(acc.ID, ds, "evt_parity")); err == nil {
		t.Errorf("the small event was put in the bucket: its message carries it")
	}
	ms := receive(t, env, env.Resources.Queues["StripeEventQueue"].URL, func(ms []types.Message) bool { return len(ms) == 2 })
	for _, m := range ms {
		q, err := stripewebhook.DecodeMessage(aws.ToString(m.Body))
		if err != nil || (q.EventID == "evt_parity") != (len(q.Event) > 0) {
			t.Errorf("message of %s: carries its event %v, key %q (%v)", q.EventID, len(q.Event) > 0, q.Key, err)
		}
	}
}

// emptyStripeAccount stands up a Stripe API of an account with nothing in it (every
// list empty) for the backfill worker's case, and points the function at it.
func emptyStripeAccount(t *testing.T) map[string]string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[],"has_more":false,"url":%q}`, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return map[string]string{"STRIPE_API_BASE": srv.URL}
}

// stripeBackfillWorkerCase: a backfill's first step, of a connection whose Stripe
// account is empty: the worker opens the connection's key with the stack's key, reads
// the prices and the first page of customers, and marks the backfill done.
func stripeBackfillWorkerCase(t *testing.T, fn *function) {
	env := fn.env
	acc, ds := stripeConnected(t, env)
	conn, err := env.Deps.Store.GetStripeConnection(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	if conn.SealedAPIKey, err = env.Deps.Secrets.Seal(ctx, []byte("rk_test_parity"),
		secrets.Binding{AccountID: acc.ID, DataSourceUUID: ds}); err != nil {
		t.Fatal(err)
	}
	if err := env.Deps.Store.PutStripeConnection(ctx, conn); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	b := model.StripeBackfill{AccountID: acc.ID, DataSourceUUID: ds, ID: model.NewStripeBackfillID(), Status: model.BackfillQueued,
		RequestedAt: now, UpdatedAt: now}
	if err := env.Deps.Store.StartStripeBackfill(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := env.Deps.StripeSteps.Send(ctx, jobs.Backfill(acc.ID, ds, b.ID)); err != nil {
		t.Fatal(err)
	}
	ms := receive(t, env, env.Resources.Queues["StripeBackfillQueue"].URL, func(ms []types.Message) bool { return len(ms) == 1 })
	if failed := invokeWorker(t, fn, "StripeBackfillQueue", ms); len(failed) != 0 {
		t.Errorf("batchItemFailures %v", failed)
	}
	got, err := env.Deps.Store.GetStripeBackfill(ctx, acc.ID, ds)
	if err != nil || got.Status != model.BackfillDone || got.Requests == 0 {
		t.Errorf("backfill %+v (%v), want done after its requests", got, err)
	}
}

// stripeEventWorkerCase: a batch of a queued event and a message whose event is not in
// the bucket: the worker reads the connection and the event, and reports the broken
// message failed. (The queued event is applied by the sync, or failed while none is
// wired.)
func stripeEventWorkerCase(t *testing.T, fn *function) {
	env := fn.env
	acc, ds := stripeConnected(t, env)
	now := time.Now().UTC()
	body, err := stripegen.Event("evt_parity_worker", stripe.EventTypeCustomerCreated, now,
		&stripe.Customer{ID: "cus_parity_worker", Object: "customer"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Deps.StripeWebhooks().Receive(ctx, ds, body, stripegen.Sign(body, paritySecret, now)); err != nil {
		t.Fatal(err)
	}
	queueURL := env.Resources.Queues["StripeEventQueue"].URL
	missing, _ := json.Marshal(stripewebhook.Message{AccountID: acc.ID, DataSourceUUID: ds, EventID: "evt_parity_missing",
		EventType: "customer.created", Key: stripewebhook.EventKey(acc.ID, ds, "evt_parity_missing"), Group: "customer:cus_missing"})
	if _, err := env.Deps.Clients.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queueURL),
		MessageBody: aws.String(string(missing)), MessageGroupId: aws.String(stripewebhook.MessageGroup(acc.ID, ds, "customer:cus_missing")),
		MessageDeduplicationId: aws.String(stripewebhook.DeduplicationID(ds, "evt_parity_missing"))}); err != nil {
		t.Fatal(err)
	}
	ms := receive(t, env, queueURL, func(ms []types.Message) bool { return len(ms) == 2 })
	failed := invokeWorker(t, fn, "StripeEventQueue", ms)
	if want := idsOf(ms, "evt_parity_missing"); !slices.Contains(failed, want[0]) {
		t.Errorf("batchItemFailures %v, want the message without its event %v among them", failed, want)
	}
}
