//go:build linux

package rie

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/devstack/lambdaevents"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// The parity cases that are not a single API request.

// pingCase: ping answers without AWS; with no account from the authorizer it answers
// ChartMogul's 401. It also records the cold and warm invoke times.
func pingCase(t *testing.T, fn *function) {
	h := fn.h
	ok := gatewayEvent(h.tpl, fn.id, nil, nil, nil, h.fix.acc.ID)
	t0 := time.Now()
	status, body := fn.callAPI(t, ok)
	cold := time.Since(t0)
	if status != 200 || body["data"] != "pong!" {
		t.Fatalf("ping: %d %v", status, body)
	}
	status, body = fn.callAPI(t, gatewayEvent(h.tpl, fn.id, nil, nil, nil, ""))
	if status != 401 || fmt.Sprint(body) != fmt.Sprint(map[string]any{"code": 401.0, "message": "No valid API key provided", "param": nil}) {
		t.Errorf("ping without an account: %d %v", status, body)
	}
	const n = 50
	warm := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if status, _ := fn.callAPI(t, ok); status != 200 {
			t.Fatalf("warm ping: %d", status)
		}
		warm = append(warm, time.Since(t0))
	}
	slices.Sort(warm)
	t.Logf("ping bootstrap under aws-lambda-rie: emulator listening after %v, cold invoke (init + first request) %v, "+
		"warm invokes over %d: p50 %v, p90 %v, max %v", fn.ready.Round(time.Microsecond), cold.Round(time.Microsecond), n,
		warm[n/2].Round(time.Microsecond), warm[n*9/10].Round(time.Microsecond), warm[n-1].Round(time.Microsecond))
}

// authorizerCase: a valid key yields its account, a revoked or malformed one none
// (the authorizer never denies; the operations answer 401).
func authorizerCase(t *testing.T, fn *function) {
	f := fn.h.fix
	d := f.env.Deps
	valid, revoked := "parity_valid_key_0123456789", "parity_revoked_key_0123456789"
	if _, err := d.Store.CreateAPIKey(ctx, f.acc.ID, auth.Hash(valid)); err != nil {
		t.Fatal(err)
	}
	id, err := d.Store.CreateAPIKey(ctx, f.acc.ID, auth.Hash(revoked))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Store.RevokeAPIKey(ctx, f.acc.ID, id); err != nil {
		t.Fatal(err)
	}
	basic := func(user string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":")) }
	for _, tc := range []struct {
		name, header, account string
	}{
		{"valid key", basic(valid), f.acc.ID},
		{"revoked key", basic(revoked), ""},
		{"malformed key", basic("short"), ""},
		{"not basic", "Bearer " + valid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res events.APIGatewayV2CustomAuthorizerSimpleResponse
			if err := json.Unmarshal(fn.invoke(t, authorizerEvent(tc.header)), &res); err != nil {
				t.Fatal(err)
			}
			if !res.IsAuthorized || res.Context["accountId"] != tc.account {
				t.Errorf("answer %+v, want authorized with account %q", res, tc.account)
			}
		})
	}
}

// createJSONImportCase: the import's new plan is created, its payload goes to S3, the import into its account's
// lane, and one message asking to feed the account to the feeder queue; fed, the lane
// gives one message per customer to the import queue.
func createJSONImportCase(t *testing.T, fn *function) {
	f := fn.h.fix
	ev := gatewayEvent(fn.h.tpl, fn.id, map[string]string{"data_source_uuid": f.ds}, nil, map[string]any{
		"external_id": "parity-batch-2",
		"customers":   []map[string]any{{"external_id": "cus-queued", "name": "Queued Customer"}},
		// A new plan, which the intake creates.
		"plans": []map[string]any{{"external_id": "parity-import-plan", "name": "Imported", "interval_count": 1, "interval_unit": "month"}},
	}, f.acc.ID)
	status, body := fn.callAPI(t, ev)
	if status != 200 || body["status"] != "queued" {
		t.Fatalf("json import: %d %v", status, body)
	}
	feeds := receive(t, f.env, f.env.Deps.Config.ImportFeedQueueURL, func(ms []types.Message) bool { return len(ms) > 0 })
	if feed, err := imports.DecodeFeedMessage(aws.ToString(feeds[0].Body)); err != nil || feed.AccountID != f.acc.ID {
		t.Fatalf("feed message %+v (%v), want the account %s", feed, err, f.acc.ID)
	}
	if err := f.env.Deps.Imports.Feed(ctx, f.acc.ID); err != nil {
		t.Fatal(err)
	}
	ms := receive(t, f.env, f.env.ImportQueueURL, func(ms []types.Message) bool { return len(ms) > 0 })
	m, err := imports.DecodeMessage(aws.ToString(ms[0].Body))
	if err != nil || m.ImportID != body["id"] || m.CustomerExternalID != "cus-queued" {
		t.Fatalf("queued message %+v (%v), import %v", m, err, body)
	}
	if _, err := f.env.S3().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(f.env.ImportBucket), Key: aws.String(m.Key)}); err != nil {
		t.Errorf("the customer's part is not in S3: %v", err)
	}
}

// importFeederCase: the feed message a json import asked for, through the real feeder:
// the account's customer message goes to the import queue.
func importFeederCase(t *testing.T, fn *function) {
	env := fn.env
	f := ownFixture(t, env)
	imp := f.call(200, "CreateJsonImportFunction", map[string]string{"data_source_uuid": f.ds}, nil, map[string]any{
		"external_id": "feeder-batch",
		"customers":   []map[string]any{{"external_id": "cus-fed", "name": "Fed Customer"}},
	})
	feeds := receive(t, env, env.Deps.Config.ImportFeedQueueURL, func(ms []types.Message) bool { return len(ms) > 0 })
	if resp := invokeWorker(t, fn, "ImportFeedQueue", feeds); len(resp) != 0 {
		t.Fatalf("batchItemFailures %v, want none", resp)
	}
	ms := receive(t, env, env.ImportQueueURL, func(ms []types.Message) bool { return len(ms) > 0 })
	m, err := imports.DecodeMessage(aws.ToString(ms[0].Body))
	if err != nil || m.ImportID != imp["id"] || m.CustomerExternalID != "cus-fed" {
		t.Fatalf("fed message %+v (%v), import %v", m, err, imp)
	}
}

// importWorkerCase: a real batch from the import queue, one customer from a json
// import and one message whose part is missing from S3: the first is applied, the
// second is reported failed.
func importWorkerCase(t *testing.T, fn *function) {
	env := fn.env
	f := ownFixture(t, env)
	imp := f.call(200, "CreateJsonImportFunction", map[string]string{"data_source_uuid": f.ds}, nil, map[string]any{
		"external_id": "worker-batch",
		"customers":   []map[string]any{{"external_id": "cus-good", "name": "Good Customer"}},
	})
	if err := env.Deps.Imports.Feed(ctx, f.acc.ID); err != nil { // the lane gives the customer's message
		t.Fatal(err)
	}
	bad := imports.Message{Version: 2, AccountID: f.acc.ID, DataSourceUUID: f.ds, ImportID: imp["id"].(string),
		CustomerExternalID: "cus-bad", Key: "imports/missing/part.json", System: "Import API", Currency: "USD"}
	badBody, _ := json.Marshal(bad)
	if _, err := env.Deps.Clients.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(env.ImportQueueURL),
		MessageBody: aws.String(string(badBody)), MessageGroupId: aws.String(bad.Group()), MessageDeduplicationId: aws.String(bad.DedupID())}); err != nil {
		t.Fatal(err)
	}
	ms := receive(t, env, env.ImportQueueURL, func(ms []types.Message) bool { return len(ms) == 2 })
	resp := invokeWorker(t, fn, "ImportQueue", ms)
	if want := idsOf(ms, "cus-bad"); !slices.Equal(resp, want) {
		t.Errorf("batchItemFailures %v, want %v (the message without its part)", resp, want)
	}
	got := f.get(t, "ListCustomersFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {"cus-good"}})
	if e := list(t, got, "entries"); len(e) != 1 || e[0]["name"] != "Good Customer" {
		t.Errorf("the good customer was not applied: %v", got)
	}
}

// jobsWorkerCase: the recomputation job that an invoice import queued, two activities
// exports (of every type, of one type), and a job of an unknown type behind them in the
// same batch: the first runs (the customer's subscriptions appear), the exports' CSVs
// are written to the bucket, the last is reported failed.
func jobsWorkerCase(t *testing.T, fn *function) {
	env := fn.env
	f := ownFixture(t, env)
	cust := f.customer("cus-jobs", "Jobs Customer", "jobs@parity.example")
	f.invoices(cust, "inv-jobs", "sub-jobs")
	if got := f.get(t, "ListCustomerSubscriptionsFunction", map[string]string{"customer_uuid": cust}, nil); len(list(t, got, "entries")) != 0 {
		t.Fatalf("subscriptions before the job ran: %v", got)
	}
	export := f.call(200, "CreateActivitiesExportFunction", nil, nil, map[string]any{})["id"].(string)
	// An export of one type reads another index than an export of all.
	typed := f.call(200, "CreateActivitiesExportFunction", nil, nil, map[string]any{"type": "new_biz"})["id"].(string)
	bad := jobs.Message{Type: "no_such_job", AccountID: f.acc.ID, CustomerUUID: "cus_00000000-0000-0000-0000-000000000000"}
	if err := env.Deps.Jobs.Send(ctx, bad); err != nil {
		t.Fatal(err)
	}
	ms := receive(t, env, env.JobsQueueURL, func(ms []types.Message) bool {
		with := func(s string) bool {
			return slices.ContainsFunc(ms, func(m types.Message) bool { return strings.Contains(aws.ToString(m.Body), s) })
		}
		return with("no_such_job") && with(export) && with(typed)
	})
	resp := invokeWorker(t, fn, "JobsQueue", ms)
	if want := idsOf(ms, "no_such_job"); !slices.Equal(resp, want) {
		t.Errorf("batchItemFailures %v, want %v (the unknown job)", resp, want)
	}
	if got := f.get(t, "ListCustomerSubscriptionsFunction", map[string]string{"customer_uuid": cust}, nil); len(list(t, got, "entries")) != 2 {
		t.Errorf("the recomputation did not run: %v", got)
	}
	for _, id := range []string{export, typed} {
		if got := f.get(t, "GetActivitiesExportFunction", map[string]string{"id": id}, nil); got["status"] != "succeeded" {
			t.Errorf("the export %s did not run: %v", id, got)
		}
	}
	if _, err := env.S3().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(env.ImportBucket),
		Key: aws.String(workers.ExportKey(f.acc.ID, export))}); err != nil {
		t.Errorf("the export's CSV is not in S3: %v", err)
	}
}

// sweeperCase: on its schedule the sweeper finds a due wake-up in GSI2 and queues the
// customer's recomputation in the bulk lane.
func sweeperCase(t *testing.T, fn *function) {
	env := fn.env
	f := ownFixture(t, env)
	cust := f.customer("cus-wake", "Wake Customer", "wake@parity.example")
	due := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	if err := env.Deps.Store.PutMetricsWake(ctx, store.MetricsWake{AccountID: f.acc.ID, CustomerUUID: cust, Due: due}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	out := fn.invoke(t, events.EventBridgeEvent{Version: "0", ID: "parity-sweep", DetailType: "Scheduled Event", Source: "aws.events",
		AccountID: "123456789012", Time: now, Region: env.AWS.Region, Detail: json.RawMessage(`{}`),
		Resources: []string{"arn:aws:events:us-east-1:123456789012:rule/subsight-MetricsSweeperFunctionSweep"}})
	if string(out) != "null" {
		t.Errorf("answer %s, want null", out)
	}
	receive(t, env, env.RecomputeQueueURL, func(ms []types.Message) bool {
		return slices.ContainsFunc(ms, func(m types.Message) bool {
			j, err := jobs.Decode(aws.ToString(m.Body))
			return err == nil && j.CustomerUUID == cust && j.Nonce == fmt.Sprintf("wake:%d", due.Unix()) && j.Lane == jobs.Bulk
		})
	})
}

// ownFixture is an account with a data source and the gold plan in a function's own
// resources.
func ownFixture(t *testing.T, env *testenv.Env) *fixture {
	t.Helper()
	f := &fixture{t: t, env: env, acc: env.NewAccount(t, "Parity Worker Inc")}
	f.ds = f.create("CreateDataSourceFunction", nil, map[string]any{"name": "Worker billing"})["uuid"].(string)
	f.plan = f.create("CreatePlanFunction", nil, map[string]any{"data_source_uuid": f.ds, "name": "gold",
		"external_id": "gold", "interval_count": 1, "interval_unit": "month"})["uuid"].(string)
	return f
}

// receive collects messages of a queue, with every attribute Lambda's event source
// asks for, until done says it has them all.
func receive(t *testing.T, env *testenv.Env, queueURL string, done func([]types.Message) bool) []types.Message {
	t.Helper()
	var ms []types.Message
	deadline := time.Now().Add(10 * time.Second)
	for !done(ms) {
		if time.Now().After(deadline) {
			t.Fatalf("queue %s: got %d messages, not what the case waits for", queueURL, len(ms))
		}
		out, err := env.Deps.Clients.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL),
			MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, out.Messages...)
	}
	return ms
}

// invokeWorker sends ms as Lambda's SQS event source would and returns the ids of
// batchItemFailures.
func invokeWorker(t *testing.T, fn *function, queue string, ms []types.Message) []string {
	t.Helper()
	q := fn.env.Resources.Queues[queue]
	var resp events.SQSEventResponse
	if err := json.Unmarshal(fn.invoke(t, lambdaevents.SQS(ms, q.ARN, fn.env.AWS.Region)), &resp); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// idsOf lists the ids of the messages whose body contains s.
func idsOf(ms []types.Message, s string) []string {
	var out []string
	for _, m := range ms {
		if strings.Contains(aws.ToString(m.Body), s) {
			out = append(out, aws.ToString(m.MessageId))
		}
	}
	return out
}
