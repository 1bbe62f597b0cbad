package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/infra/testkit/faults"
	"github.com/subsight/subsight/shared/keys"
)

// faultRate is the share of DynamoDB request attempts that fail in TestImportUnderFaults.
const faultRate = 0.10

// TestImportUnderFaults imports FAULT_TEST_CUSTOMERS customers (default 50; 12
// monthly invoices each, as the import benchmark) through the whole local stack twice,
// into two accounts: once without faults, then with 10 % of the workers' and handlers'
// DynamoDB request attempts failing (faults.Injector: transaction conflicts,
// throttling, 500, 503, timeouts after the write applied), with the customers'
// recomputations. The second account must end exactly like the first: every
// customer's MRR, ARR, status and customer-since, the Metrics API's answer, the number
// of items of every kind (no record lost or written twice), nothing in either
// dead-letter queue, and the series checker finds no difference in the second.
//
// make test runs it at 50 customers; make fault-test at 1,000 (FAULT_TEST_CUSTOMERS).
func TestImportUnderFaults(t *testing.T) {
	inject := faults.New(faultRate, 14)
	importUnderFaults(t, inject, nil)
	for _, k := range faults.Kinds {
		if inject.Injected()[k] == 0 {
			t.Errorf("no fault of kind %s was injected: the run proves nothing about it", k)
		}
	}
}

// TestImportUnderHotPartition imports as TestImportUnderFaults does while one partition
// of the account is hot: every request touching it answers
// ProvisionedThroughputExceededException for HOT_PARTITION_SECONDS (default 5; make
// hot-partition-test: 60) from the moment the imports are sent (the API requests that
// send them would fail with a 500 otherwise, as on AWS, and the test client does not
// repeat a POST). The partition is the account's own (its item, data
// sources, import records: read by every import batch) and the series read copy of
// the whole account (written by every fold), the partitions a real import makes hot.
// Every customer must apply, nothing may be dead-lettered, and the account must end as
// the one imported without faults.
func TestImportUnderHotPartition(t *testing.T) {
	window := 5 * time.Second
	if v, err := strconv.Atoi(os.Getenv("HOT_PARTITION_SECONDS")); err == nil && v > 0 {
		window = time.Duration(v) * time.Second
	}
	inject := faults.New(0, 15)
	importUnderFaults(t, inject, func(account string) {
		hot := map[string]bool{keys.AccountPartition(account): true, keys.SeriesPartition(account, "all"): true}
		inject.Hot(func(pk string) bool { return hot[pk] }, window)
	})
	if inject.Injected()[faults.HotPartition] == 0 {
		t.Error("no request met the hot partition: the run proves nothing")
	}
}

// importUnderFaults imports FAULT_TEST_CUSTOMERS customers into two accounts, the
// second with inject on, and compares; hot, if set, is called with the second account
// once its imports are sent.
func importUnderFaults(t *testing.T, inject *faults.Injector, hot func(account string)) {
	customers := 50
	if v, err := strconv.Atoi(os.Getenv("FAULT_TEST_CUSTOMERS")); err == nil && v > 0 {
		customers = v
	}
	ctx := context.Background()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	attach := func(cfg *aws.Config) {
		inject.Attach(cfg)
		// The SDK's own retry policy, with its backoff capped at 50 ms instead of 20 s:
		// the same retries, without hours of waiting for the emulator's sake.
		cfg.Retryer = func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxBackoff = 50 * time.Millisecond })
		}
	}
	s, err := newStack(ctx, options{root: root, addr: "127.0.0.1:0", demoLimits: testLimits, apiKey: "fault_ref_0123456789abcdef",
		motoOutput: io.Discard, awsConfig: attach, pollers: importBenchPollers, retryDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const faultyKey = "fault_inj_0123456789abcdef"
	faultyAccount, err := seedDemoAccount(ctx, s.deps, faultyKey)
	if err != nil {
		t.Fatal(err)
	}
	reference := &benchClient{base: s.baseURL, key: s.apiKey}
	faulty := &benchClient{base: s.baseURL, key: faultyKey}

	start := time.Now()
	importAndWait(t, s, reference, customers, nil)
	t.Logf("without faults: %d customers imported and recomputed in %v", customers, time.Since(start).Round(time.Millisecond))

	receivedBefore := s.received()
	inject.Start()
	start = time.Now()
	importAndWait(t, s, faulty, customers, func() {
		if hot != nil {
			hot(faultyAccount)
		}
	})
	inject.Stop()
	t.Logf("with faults: %d customers imported and recomputed in %v; %s", customers, time.Since(start).Round(time.Millisecond), inject.Summary())
	received := s.received()
	for q, n := range receivedBefore {
		received[q] -= n
	}
	t.Logf("messages received per queue with faults: %v (without: %v)", received, receivedBefore)

	for _, dlq := range deadLetterQueues {
		if n := queueLength(t, s, dlq); n != 0 {
			t.Errorf("%d messages in %s", n, dlq)
		}
	}
	want, got := customerFigures(t, reference), customerFigures(t, faulty)
	if len(want) != customers {
		t.Fatalf("the run without faults has %d customers, want %d", len(want), customers)
	}
	if !reflect.DeepEqual(got, want) {
		n := 0
		for ext, w := range want {
			if g := got[ext]; g != w && n < 10 {
				t.Errorf("customer %s: %+v under faults, %+v without", ext, g, w)
				n++
			}
		}
		t.Fatalf("customers differ (%d under faults, %d without)", len(got), len(want))
	}
	q := url.Values{"start-date": {"2024-01-01"}, "end-date": {"2025-03-31"}, "interval": {"month"}}
	if w, g := getJSON(t, reference, "/v1/metrics/all?"+q.Encode()), getJSON(t, faulty, "/v1/metrics/all?"+q.Encode()); !reflect.DeepEqual(g, w) {
		t.Errorf("metrics under faults:\n%v\nwithout:\n%v", g, w)
	}
	counts := itemCounts(t, s, s.accountID, faultyAccount)
	wantItems, gotItems := counts[s.accountID], counts[faultyAccount]
	// How many series bucket items there are depends on how the customers' uuids (which
	// differ between the accounts) spread over the write shards; their numbers are
	// compared by the metrics answer above and by the series check below.
	// The import records' windows are one per minute the account's imports touched:
	// timing, not data.
	for _, kind := range []string{"series_index", "series_year", "series_month", "import_records_window"} {
		delete(wantItems, kind)
		delete(gotItems, kind)
	}
	if !reflect.DeepEqual(gotItems, wantItems) {
		t.Errorf("items per kind under faults %v, without %v", gotItems, wantItems)
	}
	t.Logf("items per kind in each account: %v", wantItems)
	start = time.Now()
	v, err := s.deps.Workers().CheckSeries(ctx, faultyAccount)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() {
		t.Errorf("series check of the account imported under faults:\n%s", v.Report())
	} else {
		t.Logf("series check of the account imported under faults (%v): %d customers, %d segments, %d numbers, no difference",
			time.Since(start).Round(time.Millisecond), v.Customers, v.Segments, v.Numbers)
	}
}

// importAndWait sends the benchmark's payload of n customers in json_imports of
// importBenchChunk and waits until each is completed and the jobs queue is empty. A
// status request that fails on the server (a fault the handler could not absorb) is
// repeated, as a client would. posted, if set, is called once the imports are sent.
func importAndWait(t *testing.T, s *stack, c *benchClient, n int, posted func()) {
	ds, ids := postImports(t, c, "faults", n)
	if posted != nil {
		posted()
	}
	waitImported(t, c, ds, ids)
	waitForJobs(t, s)
}

// postImports creates a data source named name and sends the benchmark's payload of n
// customers to it in json_imports of importBenchChunk; it returns the data source's
// uuid and the imports' external ids.
func postImports(t testing.TB, c *benchClient, name string, n int) (string, []string) {
	var ds struct {
		UUID string `json:"uuid"`
	}
	c.do(t, "POST", "/v1/data_sources", map[string]any{"name": name}, &ds)
	var ids []string
	for first := 0; first < n; first += importBenchChunk {
		var imp struct {
			ExternalID string `json:"external_id"`
		}
		c.do(t, "POST", "/v1/data_sources/"+ds.UUID+"/json_imports", importBenchPayload(fmt.Sprintf("%s-%d", name, first), first, min(importBenchChunk, n-first)), &imp)
		ids = append(ids, imp.ExternalID)
	}
	return ds.UUID, ids
}

// waitImported waits until every import is completed. A status request that fails on
// the server (a fault the handler could not absorb) is repeated, as a client would.
func waitImported(t testing.TB, c *benchClient, dsUUID string, ids []string) {
	for _, id := range ids {
		for {
			status, raw := c.send(t, "GET", "/v1/data_sources/"+dsUUID+"/json_imports/"+id, nil)
			var st struct {
				Status string `json:"status"`
			}
			if status == 200 && json.Unmarshal(raw, &st) == nil && st.Status == "completed" {
				break
			}
			// A 5xx or a 429 (a throttled rate counter under the injected faults) is
			// asked again, as the official clients do.
			if status != 200 && status < 500 && status != 429 {
				t.Fatalf("import status: %d %s", status, raw)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
}

// figures are what a customer's recomputation leaves on it.
type figures struct {
	MRR, ARR      float64
	Status, Since string
}

// customerFigures lists the account's customers by external id (cursor pages of 200).
func customerFigures(t *testing.T, c *benchClient) map[string]figures {
	out := map[string]figures{}
	for cursor := ""; ; {
		q := url.Values{"per_page": {"200"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		body := getJSON(t, c, "/v1/customers?"+q.Encode())
		entries, _ := body["entries"].([]any)
		for _, e := range entries {
			m := e.(map[string]any)
			ext, _ := m["external_id"].(string)
			mrr, _ := m["mrr"].(float64)
			arr, _ := m["arr"].(float64)
			status, _ := m["status"].(string)
			since, _ := m["customer-since"].(string)
			if _, dup := out[ext]; dup {
				t.Errorf("customer %s listed twice", ext)
			}
			out[ext] = figures{MRR: mrr, ARR: arr, Status: status, Since: since}
		}
		cursor, _ = body["cursor"].(string)
		if more, _ := body["has_more"].(bool); !more || len(entries) == 0 || cursor == "" {
			return out
		}
	}
}

func getJSON(t *testing.T, c *benchClient, path string) map[string]any {
	var out map[string]any
	c.do(t, "GET", path, nil, &out)
	return out
}

// itemCounts counts the accounts' items per entity type, in one scan of the table.
func itemCounts(t *testing.T, s *stack, accountIDs ...string) map[string]map[string]int {
	db := dynamodb.NewFromConfig(mustConfig(t, s))
	out := map[string]map[string]int{}
	for _, acc := range accountIDs {
		out[acc] = map[string]int{}
	}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(s.deps.Config.TableName)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			pk, _ := it["PK"].(*types.AttributeValueMemberS)
			et, _ := it["et"].(*types.AttributeValueMemberS)
			if pk == nil {
				continue
			}
			acc, _, _ := strings.Cut(pk.Value, "#")
			counts, ok := out[acc]
			if !ok {
				continue
			}
			kind := "?"
			if et != nil {
				kind = et.Value
			}
			counts[kind]++
		}
	}
	return out
}
