package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// testDeadLetters opens the test's dead-letter queues as the admin command does.
func testDeadLetters(t *testing.T, te *testenv.Env) *deadLetters {
	t.Helper()
	d := &deadLetters{sqs: te.Deps.Clients.SQS, s3: te.S3(), bucket: te.ImportBucket, store: te.Deps.Store,
		now: func() time.Time { return time.Now().UTC() }, hold: 300}
	var err error
	d.queues, err = deadLetterQueues(te.Template, func(id string) (string, error) {
		if q, ok := te.Resources.Queues[id]; ok {
			return q.URL, nil
		}
		return "", errors.New("not provisioned")
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sendTo puts a message in a queue as SQS moves one to a dead-letter queue: the body
// and group kept.
func sendTo(t *testing.T, te *testenv.Env, queueURL, body, group string) string {
	t.Helper()
	out, err := te.Deps.Clients.SQS.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(queueURL),
		MessageBody: aws.String(body), MessageGroupId: aws.String(group),
		MessageDeduplicationId: aws.String(strconv.FormatInt(time.Now().UnixNano(), 36))})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.MessageId)
}

func note(t *testing.T, te *testenv.Env, account, id, text string) {
	t.Helper()
	if err := te.Deps.Store.NoteDeadLetter(context.Background(), store.DeadLetterNote{AccountID: account, MessageID: id,
		Queue: "q", Error: text, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

// visible is how many messages a queue holds that a receive would return now.
func visible(t *testing.T, te *testenv.Env, queueURL string) int {
	t.Helper()
	res, err := te.Deps.Clients.SQS.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(res.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	return n
}

func TestDeadLetterListGroupsByAccountAndError(t *testing.T) {
	te := testenv.New(t)
	d := testDeadLetters(t, te)
	a, b := model.NewAccountID(), model.NewAccountID()
	body := func(account string, n int) string {
		return fmt.Sprintf(`{"v":2,"account_id":%q,"import_id":"i%d","customer_external_id":"c%d","key":"k"}`, account, n, n)
	}
	for i, c := range []struct{ account, err string }{{a, "read part: timeout"}, {a, "read part: timeout"}, {a, "conflict"}, {b, ""}} {
		id := sendTo(t, te, te.ImportDLQURL, body(c.account, i), fmt.Sprintf("g%d", i))
		if c.err != "" {
			note(t, te, c.account, id, c.err)
		}
	}
	note(t, te, a, sendTo(t, te, te.JobsDLQURL, `{"type":"recompute_customer","account_id":"`+a+`","customer_uuid":"cus_1"}`, a+"#cus_1"), "throttled")

	for range 2 { // listing consumes nothing: the second sees the same
		ls, err := d.list(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]accountGroup{}
		for _, l := range ls {
			got[l.Queue] = l.Accounts
			if l.Queue == "ScheduleDeadLetterQueue" && (l.Source != "" || l.Replay != "not replayable") {
				t.Errorf("schedule queue listed as %+v", l)
			}
		}
		imp := got["ImportDeadLetterQueue"]
		if len(imp) != 2 || imp[0].AccountID != a || imp[0].Messages != 3 || imp[1].AccountID != b || imp[1].Messages != 1 {
			t.Fatalf("import dead letters by account: %+v", imp)
		}
		if e := imp[0].Errors; len(e) != 2 || e[0].Error != "read part: timeout" || e[0].Messages != 2 || e[1].Error != "conflict" || e[1].Messages != 1 {
			t.Fatalf("account A's errors: %+v", e)
		}
		if e := imp[1].Errors; len(e) != 1 || e[0].Error != noError || e[0].OldestAgeSeconds < 0 {
			t.Fatalf("account B's errors: %+v", e)
		}
		if j := got["JobsDeadLetterQueue"]; len(j) != 1 || j[0].Errors[0].Error != "throttled" {
			t.Fatalf("jobs dead letters: %+v", j)
		}
		if n := visible(t, te, te.ImportDLQURL); n != 4 {
			t.Fatalf("after listing %d import dead letters are visible, want 4", n)
		}
	}

	ls, err := d.list(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	printListing(&text, ls)
	for _, want := range []string{"ImportDeadLetterQueue (from ImportQueue; replay: per message", "account " + b + ": 1 messages", noError} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text listing lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), a) {
		t.Errorf("-account %s listed another account:\n%s", b, text.String())
	}
}

// importFixture is an account with imports whose customers' messages are taken off
// the import queue before the worker applies them.
type importFixture struct {
	te  *testenv.Env
	acc model.Account
}

func (f importFixture) dataSource(t *testing.T, name string) model.DataSource {
	t.Helper()
	return f.te.NewDataSource(t, f.acc.ID, name)
}

// accept takes an import of customers and feeds its messages to the import queue.
func (f importFixture) accept(t *testing.T, ds model.DataSource, external string, customers ...string) model.Import {
	t.Helper()
	var cs []map[string]any
	for _, c := range customers {
		cs = append(cs, map[string]any{"external_id": c, "name": "Customer " + c + " of " + external})
	}
	body, _ := json.Marshal(map[string]any{"external_id": external, "customers": cs})
	imp, err := f.te.Deps.Imports.Accept(context.Background(), f.acc, ds, body)
	if err != nil {
		t.Fatal(err)
	}
	// The feed message waits out the feeder queue's delay (a second).
	for tries := 0; visible(t, f.te, f.te.ImportQueueURL) < len(customers) && tries < 50; tries++ {
		testenv.Drain(t, f.te.Deps, f.te.Deps.Config.ImportFeedQueueURL, workers.ImportFeeder(f.te.Workers))
		time.Sleep(100 * time.Millisecond)
	}
	return imp
}

// takeMessages receives n messages of the import queue and deletes them there.
func (f importFixture) takeMessages(t *testing.T, n int) []events.SQSMessage {
	t.Helper()
	ctx := context.Background()
	var out []events.SQSMessage
	for tries := 0; len(out) < n && tries < 20; tries++ {
		res, err := f.te.Deps.Clients.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(f.te.ImportQueueURL),
			MaxNumberOfMessages: 10, MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Messages {
			out = append(out, events.SQSMessage{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body), Attributes: m.Attributes,
				EventSourceARN: f.te.Resources.Queues["ImportQueue"].ARN})
			if _, err := f.te.Deps.Clients.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(f.te.ImportQueueURL),
				ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(out) != n {
		t.Fatalf("import queue held %d messages, want %d", len(out), n)
	}
	return out
}

// deadLetter fails msgs on their last receive in the import worker (their part made
// unreadable for the time), which marks their customers failed and notes why, then
// moves them to the dead-letter queue as SQS does; it returns their ids there.
func (f importFixture) deadLetter(t *testing.T, msgs []events.SQSMessage) []string {
	t.Helper()
	ctx := context.Background()
	s3c, bucket := f.te.S3(), f.te.ImportBucket
	var ids []string
	for _, msg := range msgs {
		m, err := imports.DecodeMessage(msg.Body)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(m.Key)})
		if err != nil {
			t.Fatal(err)
		}
		part, _ := io.ReadAll(obj.Body)
		put := func(b []byte) {
			if _, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(m.Key), Body: bytes.NewReader(b)}); err != nil {
				t.Fatal(err)
			}
		}
		put([]byte("not a part"))
		msg.Attributes["ApproximateReceiveCount"] = "20"
		resp, err := workers.ImportWith(f.te.Deps.Imports, 20, nil)(ctx, events.SQSEvent{Records: []events.SQSMessage{msg}})
		if err != nil || len(resp.BatchItemFailures) != 1 {
			t.Fatalf("the worker did not fail the message: %v %+v", err, resp)
		}
		put(part)
		id := sendTo(t, f.te, f.te.ImportDLQURL, msg.Body, msg.Attributes["MessageGroupId"])
		// SQS keeps the message id when it dead-letters a message; here the note moves to the new id.
		notes, err := f.te.Deps.Store.DeadLetterNotes(ctx, f.acc.ID, []string{msg.MessageId})
		if err != nil || !strings.Contains(notes[msg.MessageId].Error, "invalid character") {
			t.Fatalf("the worker noted %+v (%v)", notes, err)
		}
		note(t, f.te, f.acc.ID, id, notes[msg.MessageId].Error)
		ids = append(ids, id)
	}
	return ids
}

func (f importFixture) outcome(t *testing.T, imp model.Import, customer string) string {
	t.Helper()
	st, err := f.te.Deps.Store.ImportCustomerOutcome(context.Background(), f.acc.ID, imp.ID, customer)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestDeadLetterRedriveOfImports(t *testing.T) {
	te := testenv.New(t)
	ctx := context.Background()
	f := importFixture{te: te, acc: te.NewAccount(t, "Redrive")}
	d := testDeadLetters(t, te)
	live, purged := f.dataSource(t, "live"), f.dataSource(t, "expired")

	// c1 and c3 fail in the first import; c3 is applied by a newer one.
	first := f.accept(t, live, "first", "c1", "c3")
	dead := f.deadLetter(t, f.takeMessages(t, 2))
	if f.outcome(t, first, "c1") != model.RecordsFailed {
		t.Fatal("the last receive did not mark the customer failed")
	}
	time.Sleep(5 * time.Millisecond) // the second import is newer
	second := f.accept(t, live, "second", "c3")
	te.DrainImports(t)
	if f.outcome(t, second, "c3") == model.RecordsFailed {
		t.Fatal("the second import did not apply c3")
	}
	// c9's payload has expired.
	f.accept(t, purged, "gone", "c9")
	goneMsgs := f.takeMessages(t, 1)
	dead = append(dead, f.deadLetter(t, goneMsgs)...)
	goneMsg, _ := imports.DecodeMessage(goneMsgs[0].Body)
	if _, err := te.S3().DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(te.ImportBucket), Key: aws.String(goneMsg.Key)}); err != nil {
		t.Fatal(err)
	}

	want := map[string]string{dead[0]: actionReplay, dead[1]: actionDelete, dead[2]: actionDelete}
	wantReason := map[string]string{dead[1]: "superseded: import second", dead[2]: "payload is gone"}
	check := func(out []outcome) {
		t.Helper()
		if len(out) != 3 {
			t.Fatalf("outcomes %+v", out)
		}
		for _, o := range out {
			if o.Action != want[o.MessageID] || !strings.Contains(o.Reason, wantReason[o.MessageID]) || o.AccountID != f.acc.ID {
				t.Errorf("message %s: %s (%s), want %s (%s)", o.MessageID, o.Action, o.Reason, want[o.MessageID], wantReason[o.MessageID])
			}
		}
	}

	// A dry run says so and changes nothing.
	out, err := d.redrive(ctx, "ImportDeadLetterQueue", "", true)
	if err != nil {
		t.Fatal(err)
	}
	check(out)
	if n, m := visible(t, te, te.ImportDLQURL), visible(t, te, te.ImportQueueURL); n != 3 || m != 0 {
		t.Fatalf("after a dry run: %d dead letters visible (want 3), %d in the import queue (want 0)", n, m)
	}
	if _, err := d.redrive(ctx, "ImportDeadLetterQueue", model.NewAccountID(), false); err != nil || visible(t, te, te.ImportDLQURL) != 3 {
		t.Fatalf("another account's redrive touched this one's messages (%v)", err)
	}

	var text bytes.Buffer
	if err := dlqCommand(ctx, env{stdout: &text, deadLetters: func(context.Context) (*deadLetters, error) { return d, nil }},
		[]string{"redrive", "-queue", "ImportDeadLetterQueue", "-account", f.acc.ID}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "1 replayed, 2 deleted as obsolete, 0 kept") {
		t.Fatalf("redrive printed:\n%s", text.String())
	}
	if n := visible(t, te, te.ImportDLQURL); n != 0 {
		t.Fatalf("%d dead letters left", n)
	}

	// The replayed message keeps its group, carries the redrive mark, and is applied.
	res, err := te.Deps.Clients.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(te.ImportQueueURL),
		MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"}, VisibilityTimeout: 0,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
	if err != nil || len(res.Messages) != 1 {
		t.Fatalf("import queue: %v %d messages", err, len(res.Messages))
	}
	replayed := res.Messages[0]
	if m, _ := imports.DecodeMessage(aws.ToString(replayed.Body)); m.CustomerExternalID != "c1" || m.ImportID != first.ID ||
		replayed.Attributes["MessageGroupId"] != m.Group() || replayed.MessageAttributes[sqsworker.RedrivenAttribute].StringValue == nil {
		t.Fatalf("replayed %+v", replayed)
	}
	if _, err := te.Deps.Clients.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(te.ImportQueueURL),
		ReceiptHandle: replayed.ReceiptHandle, VisibilityTimeout: 0}); err != nil {
		t.Fatal(err)
	}
	te.DrainImports(t)
	if st := f.outcome(t, first, "c1"); st == model.RecordsFailed {
		t.Fatal("the replayed customer is still failed in its import")
	}
	uuid, err := te.Deps.Store.CustomerUUIDByExternalID(ctx, f.acc.ID, live.UUID, "c1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := te.Deps.Store.GetCustomer(ctx, f.acc.ID, uuid)
	if err != nil || c.Name != "Customer c1 of first" {
		t.Fatalf("customer c1 after the replay: %+v %v", c, err)
	}
	if _, err := te.Deps.Store.CustomerUUIDByExternalID(ctx, f.acc.ID, purged.UUID, "c9"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("c9, whose payload is gone, exists: %v", err)
	}
}

func TestDeadLetterRedriveKeepsWhatWaitsForANewerImport(t *testing.T) {
	te := testenv.New(t)
	ctx := context.Background()
	f := importFixture{te: te, acc: te.NewAccount(t, "Redrive")}
	d := testDeadLetters(t, te)
	live := f.dataSource(t, "live")
	f.accept(t, live, "first", "c1")
	dead := f.deadLetter(t, f.takeMessages(t, 1))
	time.Sleep(5 * time.Millisecond)
	f.accept(t, live, "second", "c1") // its message waits in the import queue
	out, err := d.redrive(ctx, "ImportDeadLetterQueue", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].MessageID != dead[0] || out[0].Action != actionKeep || !strings.Contains(out[0].Reason, "still under way") {
		t.Fatalf("outcomes %+v", out)
	}
	if n := visible(t, te, te.ImportDLQURL); n != 1 {
		t.Fatalf("%d dead letters visible, want the kept one", n)
	}
	if _, err := d.redrive(ctx, "ScheduleDeadLetterQueue", "", false); err == nil || !strings.Contains(err.Error(), "not replayed") {
		t.Fatalf("the schedule's dead letters were replayed: %v", err)
	}
}

func TestDeadLetterRedriveOfJobs(t *testing.T) {
	te := testenv.New(t)
	ctx := context.Background()
	d := testDeadLetters(t, te)
	acc, gone := te.NewAccount(t, "Jobs"), model.NewAccountID()
	job := func(account string) string {
		return `{"type":"recompute_customer","account_id":"` + account + `","customer_uuid":"cus_1"}`
	}
	live := sendTo(t, te, te.JobsDLQURL, job(acc.ID), acc.ID+"#cus_1")
	obsolete := sendTo(t, te, te.JobsDLQURL, job(gone), gone+"#cus_1")
	out, err := d.redrive(ctx, "JobsDeadLetterQueue", "", false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]outcome{}
	for _, o := range out {
		got[o.MessageID] = o
	}
	if got[live].Action != actionReplay || got[obsolete].Action != actionDelete || got[obsolete].Reason != "its account no longer exists" {
		t.Fatalf("outcomes %+v", out)
	}
	res, err := te.Deps.Clients.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(te.JobsQueueURL), MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
	if err != nil || len(res.Messages) != 1 || aws.ToString(res.Messages[0].Body) != job(acc.ID) ||
		res.Messages[0].Attributes["MessageGroupId"] != acc.ID+"#cus_1" {
		t.Fatalf("jobs queue after the redrive: %+v %v", res.Messages, err)
	}
	if n := visible(t, te, te.JobsDLQURL); n != 0 {
		t.Fatalf("%d jobs dead letters left", n)
	}
}

// The local stack's file and the template find the queues as `admin -local` does; on
// AWS a queue is found by the name the template gives it in the stack.
func TestDeadLetterQueuesAreFound(t *testing.T) {
	te := testenv.New(t)
	ctx := context.Background()
	root, _ := testenv.RepoTemplate(t)
	tpl, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	urls := map[string]string{}
	for id, q := range te.Resources.Queues {
		urls[id] = q.URL
	}
	sf, _ := json.Marshal(map[string]any{"endpoint_url": te.Endpoint, "region": te.AWS.Region, "table_name": te.TableName,
		"import_bucket": te.ImportBucket, "queue_urls": urls})
	if err := os.MkdirAll(filepath.Join(dir, ".local"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "template.yaml"), tpl, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".local", "stack.json"), sf, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	d, err := openDeadLetters(ctx, te.Deps.Store, true, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]deadLetterQueue{}
	for _, q := range d.queues {
		got[q.Name] = q
	}
	if len(got) != 8 || d.bucket != te.ImportBucket || got["ImportDeadLetterQueue"].SourceURL != te.ImportQueueURL ||
		got["JobsDeadLetterQueue"].URL != te.JobsDLQURL || got["ScheduleDeadLetterQueue"].Source != "" {
		t.Fatalf("local dead-letter queues: %+v (bucket %q)", d.queues, d.bucket)
	}
	if _, err := d.list(ctx, ""); err != nil {
		t.Fatal(err)
	}

	stack := "st" + strconv.FormatInt(time.Now().UnixNano(), 36)
	made, err := te.Deps.Clients.SQS.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(stack + "-import-dlq.fifo"),
		Attributes: map[string]string{"FifoQueue": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = te.Deps.Clients.SQS.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: made.QueueUrl}) })
	if u, err := stackQueueURL(ctx, te.Template, te.Deps.Clients.SQS, stack)("ImportDeadLetterQueue"); err != nil || u != aws.ToString(made.QueueUrl) {
		t.Fatalf("stack queue: %q %v", u, err)
	}
}
