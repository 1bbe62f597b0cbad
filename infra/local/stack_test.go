package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/devstack/emulator"
	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/routes"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/workers"
)

// testStack is one whole local stack for the package's tests. The import queue's
// worker is replaced by testWorker, so that the pollers' batch semantics can be
// observed; everything else is the real code.
var (
	testStack  *stack
	testWorker = &recordingWorker{}
	// sweeps counts the scheduled invocations of the real metrics wake-up sweeper.
	sweeps   atomic.Int32
	stackDir string
)

const testKey = "test_key_0123456789abcdef"

func TestMain(m *testing.M) {
	code, err := runTests(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func runTests(m *testing.M) (int, error) {
	flag.Parse()
	if benchmarksOnly() {
		return m.Run(), nil
	}
	root, err := repo.Root()
	if err != nil {
		return 0, err
	}
	if _, err := emulator.FindBinary(); errors.Is(err, emulator.ErrNotFound) {
		fmt.Println(emulator.SkipNotInstalled)
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	stackDir, err = os.MkdirTemp("", "localstack")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(stackDir)
	builders := map[string]func(*workers.Deps) sqsworker.Handler{}
	for k, v := range routes.Workers {
		builders[k] = v
	}
	builders["ImportWorkerFunction"] = func(*workers.Deps) sqsworker.Handler { return testWorker.handle }
	schedules := map[string]routes.Scheduled{}
	for k, build := range routes.Schedules {
		schedules[k] = func(d *workers.Deps) func(context.Context) error {
			h := build(d)
			return func(ctx context.Context) error {
				defer sweeps.Add(1)
				return h(ctx)
			}
		}
	}
	stripeAPI := fakeStripeAccount()
	defer stripeAPI.Close()
	t0 := time.Now()
	testStack, err = newStack(context.Background(), options{
		root: root, addr: "127.0.0.1:0", apiKey: testKey, retryDelay: 100 * time.Millisecond, demoLimits: testLimits,
		stackFile: filepath.Join(stackDir, "stack.json"), workers: builders, stripeAPIBase: stripeAPI.URL,
		schedules: schedules, scheduleEvery: 500 * time.Millisecond,
	})
	if err != nil {
		return 0, err
	}
	defer testStack.Close()
	fmt.Fprintf(os.Stderr, "local stack started in %v\n", time.Since(t0))
	return m.Run(), nil
}

// benchmarksOnly: `go test -run '^$' -bench ...` runs no test, so no test stack is
// started; the benchmarks start their own, and an idle one would share the CPU.
func benchmarksOnly() bool {
	run, bench := flag.Lookup("test.run"), flag.Lookup("test.bench")
	return bench != nil && bench.Value.String() != "" && run != nil && run.Value.String() == "^$"
}

func get(t *testing.T, path, user, password string, setAuth bool) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", testStack.baseURL+path, nil)
	if setAuth {
		req.SetBasicAuth(user, password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHTTP(t *testing.T) {
	const unauthorized = `{"code":401,"message":"No valid API key provided","param":null}`
	other, err := auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, user, password string
		setAuth                    bool
		wantStatus                 int
		wantBody                   string
	}{
		{"ping", "/v1/ping", testKey, "", true, 200, `{"data":"pong!"}`},
		{"no header", "/v1/ping", "", "", false, 401, unauthorized},
		{"wrong key", "/v1/ping", other, "", true, 401, unauthorized},
		{"malformed key", "/v1/ping", "short", "", true, 401, unauthorized},
		{"any password is ignored", "/v1/ping", testKey, "x", true, 200, `{"data":"pong!"}`},
		{"the key as password", "/v1/ping", testKey, testKey, true, 200, `{"data":"pong!"}`},
		{"wrong key with its password", "/v1/ping", other, other, true, 401, unauthorized},
		{"unknown route", "/v1/nope", testKey, "", true, 404, `{"message":"Not Found"}`},
		{"unknown route without key", "/nope", "", "", false, 404, `{"message":"Not Found"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := get(t, tc.path, tc.user, tc.password, tc.setAuth)
			if status != tc.wantStatus || body != tc.wantBody {
				t.Fatalf("GET %s = %d %s, want %d %s", tc.path, status, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

func TestDemoAccount(t *testing.T) {
	status, body := get(t, "/v1/account", testKey, "", true)
	if status != 200 {
		t.Fatalf("GET /v1/account = %d %s", status, body)
	}
	var acc map[string]any
	if err := json.Unmarshal([]byte(body), &acc); err != nil {
		t.Fatal(err)
	}
	if acc["name"] != "Demo Company" || acc["currency"] != "USD" || acc["time_zone"] != "UTC" || acc["week_start_on"] != "monday" {
		t.Errorf("account = %v", acc)
	}
	m, err := testStack.deps.Store.GetMember(context.Background(), testStack.accountID, "demo@example.com")
	if err != nil || m.Name != "Demo User" {
		t.Errorf("member = %+v, %v", m, err)
	}
}

func TestStackFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(stackDir, "stack.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info map[string]string
	var env struct {
		FunctionEnv map[string]string `json:"function_env"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	info = map[string]string{}
	for k, v := range all {
		if s, ok := v.(string); ok {
			info[k] = s
		}
	}
	if env.FunctionEnv["TABLE_NAME"] != info["table_name"] || env.FunctionEnv["CURSOR_SECRET"] != info["cursor_secret"] ||
		env.FunctionEnv["AWS_ENDPOINT_URL"] != "" {
		t.Errorf("stack.json function_env = %v", env.FunctionEnv)
	}
	for _, k := range []string{"base_url", "api_key", "account_id", "endpoint_url", "region", "table_name",
		"import_bucket", "import_queue_url", "jobs_queue_url", "cursor_secret"} {
		if info[k] == "" {
			t.Errorf("stack.json lacks %s: %s", k, b)
		}
	}
	if info["base_url"] != testStack.baseURL || info["api_key"] != testKey || info["account_id"] != testStack.accountID {
		t.Errorf("stack.json = %s", b)
	}
	var queues struct {
		QueueURLs map[string]string `json:"queue_urls"`
	}
	if err := json.Unmarshal(b, &queues); err != nil || len(queues.QueueURLs) != len(testStack.resources.Queues) ||
		queues.QueueURLs["ImportDeadLetterQueue"] != testStack.resources.Queues["ImportDeadLetterQueue"].URL {
		t.Errorf("stack.json queue_urls = %v (%v)", queues.QueueURLs, err)
	}
}

// recordingWorker is a FIFO worker whose failures the test scripts by body:
// "fail-N:x" fails its first N attempts, "error:x" makes the whole invocation
// return an error once, "bogus:x" reports an item id that is not in the batch once,
// "slow:x" takes 100 ms. It records the batches that ran at once, and whether two
// of them held messages of one group at the same time.
type recordingWorker struct {
	mu         sync.Mutex
	attempts   map[string]int
	order      []string
	batches    [][]string
	running    int
	maxRunning int
	groupsHeld map[string]bool
	overlaps   []string
}

func (w *recordingWorker) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.attempts, w.order, w.batches = map[string]int{}, nil, nil
	w.maxRunning, w.groupsHeld, w.overlaps = 0, map[string]bool{}, nil
}

// enter records a batch that starts and returns the function that records its end.
func (w *recordingWorker) enter(ev events.SQSEvent) func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running++
	w.maxRunning = max(w.maxRunning, w.running)
	groups := map[string]bool{}
	for _, r := range ev.Records {
		groups[r.Attributes["MessageGroupId"]] = true
	}
	for g := range groups {
		if w.groupsHeld[g] {
			w.overlaps = append(w.overlaps, g)
		}
		w.groupsHeld[g] = true
	}
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.running--
		for g := range groups {
			delete(w.groupsHeld, g)
		}
	}
}

func (w *recordingWorker) handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	defer w.enter(ev)()
	w.mu.Lock()
	var batch []string
	for _, r := range ev.Records {
		batch = append(batch, r.Body)
		if r.EventSource != "aws:sqs" || r.EventSourceARN == "" || r.Attributes["MessageGroupId"] == "" ||
			r.Attributes["ApproximateReceiveCount"] == "" || r.Attributes["SequenceNumber"] == "" {
			w.mu.Unlock()
			return events.SQSEventResponse{}, fmt.Errorf("incomplete record %+v", r)
		}
	}
	w.batches = append(w.batches, batch)
	for _, b := range batch {
		if strings.HasPrefix(b, "error:") && w.attempts[b] == 0 {
			w.attempts[b]++
			w.mu.Unlock()
			return events.SQSEventResponse{}, errors.New("scripted invocation error")
		}
		if strings.HasPrefix(b, "bogus:") && w.attempts[b] == 0 {
			w.attempts[b]++
			w.mu.Unlock()
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "not-in-batch"}}}, nil
		}
	}
	w.mu.Unlock()
	return sqsworker.FIFO(func(ctx context.Context, m events.SQSMessage) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.attempts[m.Body]++
		w.order = append(w.order, m.Body)
		if strings.HasPrefix(m.Body, "slow:") {
			w.mu.Unlock()
			time.Sleep(100 * time.Millisecond)
			w.mu.Lock()
		}
		var n int
		if _, err := fmt.Sscanf(m.Body, "fail-%d:", &n); err == nil && w.attempts[m.Body] <= n {
			return errors.New("scripted failure")
		}
		return nil
	})(ctx, ev)
}

func (w *recordingWorker) snapshot() (map[string]int, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a := map[string]int{}
	for k, v := range w.attempts {
		a[k] = v
	}
	return a, append([]string(nil), w.order...)
}

func send(t *testing.T, url, group string, bodies ...string) {
	t.Helper()
	c := testStack.deps.Clients.SQS
	for _, b := range bodies {
		if _, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(b),
			MessageGroupId: aws.String(group), MessageDeduplicationId: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
}

// queueDepth counts visible plus in-flight messages.
func queueDepth(t *testing.T, url string) int {
	t.Helper()
	out, err := testStack.deps.Clients.SQS.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		t.Fatal(err)
	}
	var a, b int
	fmt.Sscan(out.Attributes["ApproximateNumberOfMessages"], &a)
	fmt.Sscan(out.Attributes["ApproximateNumberOfMessagesNotVisible"], &b)
	return a + b
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPollerPartialBatch: a failure in a batch retries the failed message and every
// later one of the batch, in order, after the local retry delay; successes are
// deleted and never redelivered.
func TestPollerPartialBatch(t *testing.T) {
	testWorker.reset()
	url := testStack.deps.Config.ImportQueueURL
	run := fmt.Sprint(time.Now().UnixNano())
	a := func(s string) string { return s + ":" + run }
	send(t, url, "A-"+run, a("a1"), a("a2"), a("fail-1:a3"), a("a4"))
	send(t, url, "B-"+run, a("b1"))
	waitFor(t, "all messages processed", 10*time.Second, func() bool {
		at, _ := testWorker.snapshot()
		return at[a("a4")] >= 1 && at[a("b1")] >= 1 && at[a("fail-1:a3")] >= 2
	})
	waitFor(t, "queue empty", 5*time.Second, func() bool { return queueDepth(t, url) == 0 })
	at, order := testWorker.snapshot()
	want := map[string]int{a("a1"): 1, a("a2"): 1, a("fail-1:a3"): 2, a("a4"): 1, a("b1"): 1}
	for k, v := range want {
		if at[k] != v {
			t.Errorf("attempts[%s] = %d, want %d (order %v)", k, at[k], v, order)
		}
	}
	var groupA []string
	for _, b := range order {
		if !strings.HasPrefix(b, "b1") {
			groupA = append(groupA, strings.TrimSuffix(b, ":"+run))
		}
	}
	if got := strings.Join(groupA, " "); got != "a1 a2 fail-1:a3 fail-1:a3 a4" {
		t.Errorf("group A order = %s", got)
	}
}

// TestPollersRunGroupsConcurrentlyInOrder: a queue is polled by several pollers, as
// Lambda runs several batches of a mapping at once; batches of different groups run
// at the same time, while a group's messages are never in two batches at once and
// are handled in the order they were sent.
func TestPollersRunGroupsConcurrentlyInOrder(t *testing.T) {
	testWorker.reset()
	url := testStack.deps.Config.ImportQueueURL
	run := fmt.Sprint(time.Now().UnixNano())
	const groups, perGroup = 25, 2 // more groups than a batch holds
	var entries []types.SendMessageBatchRequestEntry
	for k := range perGroup {
		for g := range groups {
			body := fmt.Sprintf("slow:%s:g%d:%d", run, g, k)
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(len(entries) % 10)), MessageBody: aws.String(body),
				MessageGroupId: aws.String(fmt.Sprintf("G%d-%s", g, run)), MessageDeduplicationId: aws.String(body)})
		}
	}
	for i := 0; i < len(entries); i += 10 {
		if _, err := testStack.deps.Clients.SQS.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{
			QueueUrl: aws.String(url), Entries: entries[i:min(i+10, len(entries))]}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "all messages processed", 20*time.Second, func() bool {
		_, order := testWorker.snapshot()
		return len(order) >= groups*perGroup
	})
	_, order := testWorker.snapshot()
	next := map[int]int{}
	for _, body := range order {
		var g, k int
		if _, err := fmt.Sscanf(strings.TrimPrefix(body, "slow:"+run+":"), "g%d:%d", &g, &k); err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
		if k != next[g] {
			t.Errorf("group %d: message %d handled when %d was due (order %v)", g, k, next[g], order)
		}
		next[g] = k + 1
	}
	testWorker.mu.Lock()
	defer testWorker.mu.Unlock()
	if len(testWorker.overlaps) > 0 {
		t.Errorf("groups held by two batches at once: %v", testWorker.overlaps)
	}
	if want := concurrentBatches(samtemplate.SQSMapping{MaximumConcurrency: 10}, 0); testWorker.maxRunning < want {
		t.Errorf("at most %d batches ran at once, want %d", testWorker.maxRunning, want)
	}
}

// TestPollerWholeBatchFailures: a Go error from the worker, or an item id that is
// not in the batch, fails the whole batch, which is then redelivered.
func TestPollerWholeBatchFailures(t *testing.T) {
	for _, kind := range []string{"error", "bogus"} {
		t.Run(kind, func(t *testing.T) {
			testWorker.reset()
			url := testStack.deps.Config.ImportQueueURL
			run := fmt.Sprint(time.Now().UnixNano())
			first, second := kind+":x"+run, "ok:y"+run
			// One request, so that both arrive in the same batch.
			if _, err := testStack.deps.Clients.SQS.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(url),
				Entries: []types.SendMessageBatchRequestEntry{
					{Id: aws.String("1"), MessageBody: aws.String(first), MessageGroupId: aws.String("G-" + run), MessageDeduplicationId: aws.String(first)},
					{Id: aws.String("2"), MessageBody: aws.String(second), MessageGroupId: aws.String("G-" + run), MessageDeduplicationId: aws.String(second)},
				}}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "redelivery", 10*time.Second, func() bool {
				at, _ := testWorker.snapshot()
				return at[second] >= 1
			})
			waitFor(t, "queue empty", 5*time.Second, func() bool { return queueDepth(t, url) == 0 })
			testWorker.mu.Lock()
			defer testWorker.mu.Unlock()
			var seen int
			for _, b := range testWorker.batches {
				for _, m := range b {
					if m == second {
						seen++
					}
				}
			}
			if seen != 2 {
				t.Errorf("%s was delivered %d times, want 2 (the failed batch and its retry): %v", second, seen, testWorker.batches)
			}
		})
	}
}

// TestPollerDeadLetter: a message that always fails is received maxReceiveCount
// times and then moved to the dead-letter queue by moto's redrive; the group's next
// message is processed afterwards.
func TestPollerDeadLetter(t *testing.T) {
	testWorker.reset()
	url := testStack.deps.Config.ImportQueueURL
	dlq := testStack.resources.Queues["ImportDeadLetterQueue"].URL
	maxReceive := testStack.template.Queues["ImportQueue"].Redrive.MaxReceiveCount
	run := fmt.Sprint(time.Now().UnixNano())
	poison, next := "fail-1000:p"+run, "ok:n"+run
	// The next message is sent once the poison one failed: messages behind a
	// failing one in the same batch are reported failed too and so collect
	// receives as well; sent together, both reach maxReceiveCount and both go to
	// the dead-letter queue (as on AWS).
	send(t, url, "P-"+run, poison)
	waitFor(t, "first attempt", 5*time.Second, func() bool {
		at, _ := testWorker.snapshot()
		return at[poison] >= 1
	})
	send(t, url, "P-"+run, next)
	waitFor(t, "next message processed", 20*time.Second, func() bool {
		at, _ := testWorker.snapshot()
		return at[next] >= 1
	})
	at, _ := testWorker.snapshot()
	if at[poison] != maxReceive {
		t.Errorf("poison message attempted %d times, want maxReceiveCount %d", at[poison], maxReceive)
	}
	out, err := testStack.deps.Clients.SQS.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq), MaxNumberOfMessages: 10})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, m := range out.Messages {
		found = found || aws.ToString(m.Body) == poison
	}
	if !found {
		t.Errorf("poison message not in the dead-letter queue")
	}
}

func TestConcurrentBatches(t *testing.T) {
	tests := []struct {
		name               string
		maximumConcurrency int
		limit              int
		want               int
	}{
		{"the template's limit above the local one", 10, 0, defaultPollers},
		{"the template's limit below the local one", 1, 3, 1},
		{"no template limit", 0, 3, 3},
		{"LOCAL_POLLERS above the default", 10, 4, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := concurrentBatches(samtemplate.SQSMapping{MaximumConcurrency: tc.maximumConcurrency}, tc.limit); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}
