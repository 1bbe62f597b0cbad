package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/devstack/emulator"
	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/infra/testkit/awscost"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/stagemodel"
)

// BenchmarkImportThroughLocalStack imports IMPORT_BENCH_CUSTOMERS customers (default
// 1,000, a multiple of the series' write shards) with 12 monthly invoices each (a
// subscription line item and a payment on every invoice, plus one subscription event)
// through the HTTP API of a whole local stack (router, authorizer, intake, S3, SQS
// FIFO, pollers, import worker, jobs worker), in json_imports of importBenchChunk
// customers (a whole 1,000-customer payload is over the 5 MB body limit). The stages
// run one after the other, each queue's pollers held until the stage before has
// finished: the intake (every json_import accepted), the import worker (every import
// completed), the recomputations, the series folds. So each stage's CPU time is its
// own, and with the AWS requests each invocation makes in sequence it feeds the stage
// model (infra/testkit/stagemodel), printed with the heat meter's per-key limits, the
// write units by entity type and the cost of a million records. IMPORT_BENCH_RECOMPUTE=0
// leaves the recomputations out. It also prints the time per customer with the emulator's
// CPU time and memory over the whole run (docs/benchmarks.md), and a progress line a minute.
//
// IMPORT_BENCH_SHAPE=demo imports the synthetic demo account's customers (make demo:
// four plans, nine countries, plan and quantity changes, churns and returns over two
// years, line items and payments without external ids) instead of the benchmark
// customer; the figures are then per record of that shape.
//
// IMPORT_BENCH_READER_RPS=10 runs a client that reads the account (the customer listing,
// a customer, two Metrics API requests) at that rate from the first json_import until the
// last stage is done, and reports the latency and status of its reads.
//
// For information about the emulator, the run (unless IMPORT_BENCH_RAW=0) also measures moto's raw BatchWriteItem
// throughput two ways: flat items of an invoice's size, before and after the import
// (ratio: records/s to their mean items/s), and the import's own resulting items
// written again into an empty table like the service's (ratio_same_items: that time
// over the import's).
func BenchmarkImportThroughLocalStack(b *testing.B) {
	customers := 1000
	if v, err := strconv.Atoi(os.Getenv("IMPORT_BENCH_CUSTOMERS")); err == nil && v > 0 {
		customers = v
	}
	for range b.N {
		b.StopTimer()
		runImportBenchmark(b, customers)
	}
}

const importBenchChunk = 250

// importBenchPollers is how many batches of one queue run at once: more than the local
// stack's default two (Lambda runs up to each mapping's MaximumConcurrency).
const importBenchPollers = 4

func runImportBenchmark(b *testing.B, customers int) {
	ctx := context.Background()
	root, err := repo.Root()
	if err != nil {
		b.Fatal(err)
	}
	var heat ddbmeter.Heat
	var calls ddbmeter.Calls
	recompute := os.Getenv("IMPORT_BENCH_RECOMPUTE") != "0"
	meter := ddbmeter.New()
	attach := func(cfg *aws.Config) { heat.Attach(cfg); meter.Attach(cfg); calls.Attach(cfg) }
	held := map[string]bool{}
	for _, q := range append([]string{"ImportQueue"}, jobQueues...) {
		held[q] = true
	}
	s, err := newStack(ctx, options{root: root, addr: "127.0.0.1:0", demoLimits: testLimits, apiKey: "bench_key_0123456789abcdef",
		motoOutput: io.Discard, awsConfig: attach, pollers: importBenchPollers, held: held})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	table := s.deps.Config.TableName
	plain := dynamodb.NewFromConfig(mustConfig(b, s))

	// As many raw items as the import leaves (19 per customer): each raw measurement
	// then lasts a third of the import, long enough to span the machine's short swings.
	rawItems := customers * 19
	measureRaw := os.Getenv("IMPORT_BENCH_RAW") != "0"
	var rawBefore float64
	if measureRaw {
		rawBefore = rawBatchWriteThroughput(b, plain, "raw-before", rawItems)
	}
	heat.Reset()
	meter.Reset()
	calls.Reset()

	client := &benchClient{base: s.baseURL, key: s.apiKey}
	var ds struct {
		UUID string `json:"uuid"`
	}
	client.do(b, "POST", "/v1/data_sources", map[string]any{"name": "bench"}, &ds)
	var reader *benchReader
	if rps, _ := strconv.Atoi(os.Getenv("IMPORT_BENCH_READER_RPS")); rps > 0 {
		reader = startBenchReader(s.baseURL, s.apiKey, rps)
	}

	b.StartTimer()
	start, cpuStart, motoStart := time.Now(), processCPU(b), emulatorUsage(b, s)
	stopProgress := printBenchProgress(s, start, reader)
	defer stopProgress()
	type sent struct {
		id        string
		customers int
	}
	var imports []sent
	intakeRetries, sentRecords := 0, 0
	demoShape := os.Getenv("IMPORT_BENCH_SHAPE") == "demo"
	for first := 0; first < customers; first += importBenchChunk {
		n := min(importBenchChunk, customers-first)
		body := importBenchPayload(fmt.Sprintf("bench-%d", first), first, n)
		if demoShape {
			body = demoPayload(start, fmt.Sprintf("bench-%d", first), generatedCustomers(first, n))
		}
		sentRecords += payloadRecords(body)
		var imp struct {
			ExternalID string `json:"external_id"`
		}
		// An intake the emulator was too busy to finish within the function's timeout
		// answers 500; a client sends the same body again, which resumes the import.
		for attempt := 1; ; attempt++ {
			status, raw := client.send(b, "POST", "/v1/data_sources/"+ds.UUID+"/json_imports", body)
			if status < 300 {
				if err := json.Unmarshal(raw, &imp); err != nil {
					b.Fatal(err)
				}
				break
			}
			if status < 500 || attempt == 5 {
				b.Fatalf("json_import of customers %d to %d: %d %s", first, first+n-1, status, raw)
			}
			intakeRetries++
		}
		imports = append(imports, sent{imp.ExternalID, n})
	}
	intake, cpuIntake := time.Since(start), processCPU(b)-cpuStart
	importStart := time.Now()
	s.release("ImportQueue")
	for _, imp := range imports {
		for {
			var st struct {
				Status        string                     `json:"status"`
				StatusDetails map[string]json.RawMessage `json:"status_details"`
			}
			// A status request that outlasted the function's timeout on the busy emulator
			// answers 500; a client asks again.
			status, raw := client.send(b, "GET", "/v1/data_sources/"+ds.UUID+"/json_imports/"+imp.id, nil)
			if status != http.StatusOK && status < 500 {
				b.Fatalf("import status: %d %s", status, raw)
			}
			if status == http.StatusOK {
				if err := json.Unmarshal(raw, &st); err != nil {
					b.Fatal(err)
				}
				if st.Status == "completed" {
					break
				}
			}
			time.Sleep(statusPollWait(imp.customers, st.StatusDetails))
		}
	}
	elapsed, cpuImport := time.Since(start), processCPU(b)-cpuStart
	b.StopTimer()
	stages := stageCPU{intake: cpuIntake, importWorker: cpuImport - cpuIntake}
	walls := stageCPU{intake: intake, importWorker: time.Since(importStart)}
	cpuAll := cpuImport
	if recompute {
		mark, at := processCPU(b), time.Now()
		s.release("JobsQueue")
		s.release("RecomputeQueue")
		waitForQueues(b, s, "JobsQueue", "RecomputeQueue")
		stages.recompute, walls.recompute = processCPU(b)-mark, time.Since(at)
		mark, at = processCPU(b), time.Now()
		s.release("SeriesFoldQueue")
		waitForJobs(b, s)
		stages.fold, walls.fold = processCPU(b)-mark, time.Since(at)
		cpuAll = processCPU(b) - cpuStart
	}
	// The whole run: the import and, unless left out, the later stages.
	total, moto := time.Since(start), emulatorUsage(b, s)
	stopProgress()
	b.ReportMetric(float64(total.Milliseconds())/float64(customers), "ms/customer")
	b.ReportMetric(float64((moto.CPU-motoStart.CPU).Milliseconds())/float64(customers), "emulator_CPU_ms/customer")
	b.ReportMetric(float64(moto.PeakRSS>>20), "emulator_peak_MB")
	// Printed, not logged: the testing package cuts a benchmark's log at ten lines.
	fmt.Printf("%d customers (%d records, %.1f a customer) imported%s in %v (%.1f ms per customer; the import alone %v, %d json_imports sent again); the emulator: CPU %v, memory %d MB, at most %d MB\n",
		customers, sentRecords, float64(sentRecords)/float64(customers), map[bool]string{true: " and recomputed", false: ""}[recompute], total.Round(time.Millisecond),
		float64(total.Milliseconds())/float64(customers), elapsed.Round(time.Millisecond), intakeRetries,
		(moto.CPU - motoStart.CPU).Round(time.Millisecond), moto.RSS>>20, moto.PeakRSS>>20)
	if reader != nil {
		reads := reader.Stop()
		all := reads.all()
		b.ReportMetric(float64(all.p99.Milliseconds()), "read_p99_ms")
		b.ReportMetric(float64(all.max.Milliseconds()), "read_max_ms")
		b.ReportMetric(float64(all.status5xx+all.noAnswer), "read_failures")
		fmt.Printf("Reads beside the import, %s per second:\n%s", os.Getenv("IMPORT_BENCH_READER_RPS"), reads)
	}
	// What the stack spends idle (the pollers' empty receives, this benchmark's own
	// polling), every poller running and every queue empty, is no function's: taken out
	// of each stage's CPU time at its rate over the stage's wall time.
	idleStart, idleAt := processCPU(b), time.Now()
	time.Sleep(5 * time.Second)
	idle := float64(processCPU(b)-idleStart) / float64(time.Since(idleAt))
	stages = stages.without(idle, walls)
	report := heat.Report(customers, time.Since(start))
	if recompute {
		b.ReportMetric(report.Projected, "projected_customers/s")
		fmt.Printf("Heat of the import and its recomputations: %s\n", report.Table(12))
		fmt.Printf("Write units by entity type:\n\n%s\n", report.EntityTable())
		in := importStageModel(b, s, &calls, meter.Snapshot(), report, stages, customers, len(imports))
		warmed := warmedTable(b, root)
		model := in.Model(stagemodel.CallLatency, warmed)
		fmt.Printf("Stage model of a first import (%v a request, the %s):\n\n%s\n", stagemodel.CallLatency, warmed.Name, model.Table())
		fmt.Printf("Stage model on a real table, end to end:\n\n%s\n",
			in.Grid([]stagemodel.Table{stagemodel.NewTable, warmed, stagemodel.DefaultQuotas}, stagemodel.Latencies))
		slow := in.Model(importTargetLatency, warmed)
		needs := in.Needs(1_000_000, importTarget)
		all := stagemodel.Total(needs)
		fmt.Printf("At %v a request on the %s:\n\n%s\nA million customers in %v take %.0f WCU and %.0f RCU a second: %+v.\n",
			importTargetLatency, warmed.Name, slow.Table(), importTarget, all.Write, all.Read, needs)
		b.ReportMetric(model.Rate(), "model_customers/s")
		b.ReportMetric(slow.Time(1_000_000).Minutes(), "model_1M_min_at_15ms")
	}
	// Measured again after the import. The machine's speed drifts by up to half
	// between two measurements a few seconds apart, and the import, one long
	// measurement, runs through that drift: the mean of the measurements on either
	// side of it is the raw throughput to compare it with. The ratio to the better
	// one is logged too.
	records := float64(sentRecords)
	rate := records / elapsed.Seconds()
	wcu := report.WCU
	items, minimum, perType := importedItems(b, plain, table)
	b.ReportMetric(rate, "records/s")
	if measureRaw { // IMPORT_BENCH_RAW=0 leaves these out: at 10,000 customers they take long
		rawAfter := rawBatchWriteThroughput(b, plain, "raw-after", rawItems)
		raw := (rawBefore + rawAfter) / 2
		// The import's own items written again with BatchWriteItem alone (twice, the
		// faster taken): what the emulator needs to store exactly this result.
		same := time.Duration(1<<63 - 1)
		for _, name := range []string{"raw-same-1", "raw-same-2"} {
			same = min(same, batchWriteAll(b, plain, createTableLike(b, plain, table, name), items))
			deleteTable(b, plain, name)
		}
		b.ReportMetric(raw, "raw_items/s")
		b.ReportMetric(rate/raw, "ratio")
		b.ReportMetric(same.Seconds()/elapsed.Seconds(), "ratio_same_items")
		b.Logf("raw items/s %.0f before, %.0f after (ratio to the better %.2f); the import's %d items by BatchWriteItem %v",
			rawBefore, rawAfter, rate/max(rawBefore, rawAfter), len(items), same.Round(time.Millisecond))
	}
	b.ReportMetric(wcu/records, "WCU/record")
	b.ReportMetric(wcu/minimum, "WCU/minimum")
	b.ReportMetric(report.RCU/records, "RCU/record")
	// Requests against the fewest that could store the result: every item once, 25 per
	// BatchWriteItem.
	snap := meter.Snapshot()
	b.ReportMetric(float64(snap.DynamoDBRequests())/records, "DynamoDB_requests/record")
	b.ReportMetric(float64(snap.Writes())/(float64(len(items))/25), "write_requests/minimum")
	b.ReportMetric(float64(cpuImport.Microseconds())/records, "import_CPU_us/record")
	b.ReportMetric(float64(cpuAll.Microseconds())/records, "CPU_us/record")
	b.Logf("requests: %s; CPU of this process (router, handlers, workers, SDK): intake %v, import worker %v, recomputations %v, folds %v",
		snap, stages.intake.Round(time.Millisecond), stages.importWorker.Round(time.Millisecond),
		stages.recompute.Round(time.Millisecond), stages.fold.Round(time.Millisecond))
	if recompute {
		perMillion := importUsage(s, &calls, snap, report, cpuAll, customers).Scale(1e6 / records)
		fmt.Printf("Cost of a million records imported and recomputed: %s\n", perMillion)
		b.ReportMetric(perMillion.Total(), "$/million_records")
	}
	b.Logf("customers %d records %.0f intake %v import %v; WCU %.0f, minimum %.0f",
		customers, records, intake.Round(time.Millisecond), elapsed.Round(time.Millisecond), wcu, minimum)
	for _, line := range perType {
		b.Log(line)
	}
}

// importTarget is the longest a first import of a million customers may take on the
// warmed table at importTargetLatency a request (docs/benchmarks.md, "Stage model on a
// real table").
const (
	importTarget        = 20 * time.Minute
	importTargetLatency = 15 * time.Millisecond
)

// requestLatency is what each AWS request adds to a function's billed duration on
// AWS: DynamoDB answers in single-digit milliseconds, SQS and S3 in about as much.
const requestLatency = stagemodel.CallLatency

// importUsage is what the whole run used on AWS's bill: DynamoDB units as measured;
// Lambda duration as this process's CPU time plus requestLatency per AWS request, all
// taken one after the other (an upper bound), at the workers' 1,024 MB; the functions'
// invocations as counted; SQS requests as the event source mappings make them on AWS
// (each batch one receive and one delete, besides the sends; the local pollers' empty
// receives left out); S3 requests as counted.
func importUsage(s *stack, calls *ddbmeter.Calls, snap ddbmeter.Snapshot, heat ddbmeter.HeatReport, cpu time.Duration, customers int) awscost.Usage {
	var sends, puts, gets float64
	for op, n := range snap.Requests {
		switch op {
		case "SendMessage", "SendMessageBatch":
			sends += float64(n)
		case "PutObject":
			puts += float64(n)
		case "GetObject":
			gets += float64(n)
		}
	}
	invocations, batches := 0.0, 0.0
	for fn, f := range calls.Functions() {
		invocations += float64(f.Invocations)
		if strings.Contains(fn, "Queue") { // a worker's lane: "<function>:<queue>"
			batches += float64(f.Invocations)
		}
	}
	sqsCalls := sends + 2*batches
	awsRequests := float64(snap.DynamoDBRequests()) + sqsCalls + puts + gets
	seconds := cpu.Seconds() + awsRequests*requestLatency.Seconds()
	intake := float64((customers + importBenchChunk - 1) / importBenchChunk)
	return awscost.Usage{WRU: heat.WCU, RRU: heat.RCU, LambdaGBSeconds: seconds * 1.0, LambdaInvocations: invocations,
		HTTPRequests: intake, SQSRequests: sqsCalls, S3Puts: puts, S3Gets: gets}
}

// processCPU is the user and system CPU time this process has used: the router, the
// handlers, the workers and their SDK clients (and the benchmark's client); the
// emulator runs in its own process.
func processCPU(b testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// jobQueues are the queues of the jobs worker: the jobs queue, the bulk lane of
// recomputations, the series folds; deadLetterQueues every dead-letter queue.
var (
	jobQueues        = []string{"JobsQueue", "RecomputeQueue", "SeriesFoldQueue"}
	deadLetterQueues = []string{"ImportDeadLetterQueue", "ImportFeedDeadLetterQueue", "JobsDeadLetterQueue", "RecomputeDeadLetterQueue", "SeriesFoldDeadLetterQueue"}
)

// waitForJobs waits until the jobs worker's queues have no message left, visible or in
// flight, and fails if any went to a dead-letter queue.
func waitForJobs(b testing.TB, s *stack) {
	waitForQueues(b, s, jobQueues...)
	for _, q := range deadLetterQueues {
		if n := queueLength(b, s, q); n > 0 {
			b.Fatalf("%d messages in %s", n, q)
		}
	}
}

// waitForQueues waits until the queues have no message left, visible or in flight.
func waitForQueues(b testing.TB, s *stack, queues ...string) {
	for idle := 0; idle < 3; time.Sleep(200 * time.Millisecond) {
		n := 0
		for _, q := range queues {
			n += queueLength(b, s, q)
		}
		if n == 0 {
			idle++
		} else {
			idle = 0
		}
	}
}

// queueLength is the number of messages in a queue of the template, visible, in flight
// or delayed.
func queueLength(b testing.TB, s *stack, id string) int {
	if _, ok := s.resources.Queues[id]; !ok {
		return 0 // not a queue of this template
	}
	out, err := s.deps.Clients.SQS.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(s.resources.Queues[id].URL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible, sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed}})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, v := range out.Attributes {
		x, _ := strconv.Atoi(v)
		n += x
	}
	return n
}

// statusPollWait is how long to wait before the next status request of an import of
// the given number of customers that is not completed. A status request reads one
// item per customer done (up to 250 here), a few tens of milliseconds of the emulator:
// once a second costs little, but would end the measurement up to a second after the
// last customer. The wait is what the customers left (those without an entry in
// status_details yet) take at 100 per second, faster than the import goes, from 100 ms
// to a second.
func statusPollWait(customers int, details map[string]json.RawMessage) time.Duration {
	done := len(details)
	if _, ok := details["plans"]; ok {
		done--
	}
	left := customers - done
	return min(max(time.Duration(left)*10*time.Millisecond, 100*time.Millisecond), time.Second)
}

// emulatorUsage is the emulator's CPU time and memory so far.
// printBenchProgress prints a line a minute until stopped: the time since start, the
// emulator's memory and CPU time, and the reads answered so far, so that a long run stopped
// before its end still tells how far it went.
func printBenchProgress(s *stack, start time.Time, reader *benchReader) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			line := fmt.Sprintf("progress %v:", time.Since(start).Round(time.Second))
			if u, err := s.moto.Usage(); err == nil {
				line += fmt.Sprintf(" emulator memory %d MB, at most %d MB, CPU %v;", u.RSS>>20, u.PeakRSS>>20, u.CPU.Round(time.Second))
			}
			if reader != nil {
				all := reader.Report().all()
				line += fmt.Sprintf(" reads %d, p50 %v, p99 %v, max %v, over 1 s %d, over 10 s %d, 5xx %d, no answer %d",
					all.n, all.p50.Round(time.Millisecond), all.p99.Round(time.Millisecond), all.max.Round(time.Millisecond),
					all.over1s, all.over10s, all.status5xx, all.noAnswer)
			}
			fmt.Println(line)
		}
	})
	return sync.OnceFunc(func() { close(done); wg.Wait() })
}

func emulatorUsage(b testing.TB, s *stack) emulator.Usage {
	u, err := s.moto.Usage()
	if err != nil {
		b.Fatalf("the emulator's CPU time and memory: %v", err)
	}
	return u
}

func mustConfig(b testing.TB, s *stack) aws.Config {
	cfg, err := s.moto.AWSConfig(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// rawBatchWriteThroughput writes items of about an invoice item's size with
// BatchWriteItem (batchWriteAll) and returns items per second. It writes to a table
// of its own, keyed as the service's: left in the service's table, its items would
// weigh on the import's requests whose cost on moto grows with the table.
func rawBatchWriteThroughput(b *testing.B, db *dynamodb.Client, table string, n int) float64 {
	key := func(name string, kt types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: kt}
	}
	if _, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: &table, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{key("PK", types.KeyTypeHash), key("SK", types.KeyTypeRange)}}); err != nil {
		b.Fatal(err)
	}
	pad := strings.Repeat("x", 500)
	items := make([]map[string]types.AttributeValue, n)
	for i := range items {
		items[i] = map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("raw#%d", i)},
			"SK": &types.AttributeValueMemberS{Value: "RAW"},
			"d":  &types.AttributeValueMemberS{Value: pad},
		}
	}
	rate := float64(n) / batchWriteAll(b, db, table, items).Seconds()
	deleteTable(b, db, table)
	return rate
}

// deleteTable deletes a table the benchmark made for a measurement: the emulator's
// memory is then the service's data's again.
func deleteTable(b *testing.B, db *dynamodb.Client, table string) {
	if _, err := db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &table}); err != nil {
		b.Fatal(err)
	}
}

// createTableLike creates a table with the key schema and indexes of table.
func createTableLike(b *testing.B, db *dynamodb.Client, table, name string) string {
	ctx := context.Background()
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil {
		b.Fatal(err)
	}
	t := out.Table
	var gsis []types.GlobalSecondaryIndex
	for _, g := range t.GlobalSecondaryIndexes {
		gsis = append(gsis, types.GlobalSecondaryIndex{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection})
	}
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: &name, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: t.AttributeDefinitions, KeySchema: t.KeySchema, GlobalSecondaryIndexes: gsis}); err != nil {
		b.Fatal(err)
	}
	return name
}

// batchWriteAll writes items with BatchWriteItem, 25 per request, on 10 goroutines,
// and returns how long it took.
func batchWriteAll(b *testing.B, db *dynamodb.Client, table string, items []map[string]types.AttributeValue) time.Duration {
	const workers = 10
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w * 25; i < len(items); i += workers * 25 {
				var reqs []types.WriteRequest
				for _, it := range items[i:min(i+25, len(items))] {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
				}
				if _, err := db.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
					RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// importedItems are the items the import left in the table (the per-account items
// excluded: account, keys, data source, plans, the import record) and their minimum
// write units: one write of each, indexes included. It also lists the item types
// with their counts and average sizes.
func importedItems(b *testing.B, db *dynamodb.Client, table string) ([]map[string]types.AttributeValue, float64, []string) {
	perType := map[string][2]float64{}
	var minimum float64
	var items []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		for _, it := range page.Items {
			et, ok := it["et"].(*types.AttributeValueMemberS)
			if !ok {
				continue
			}
			switch et.Value {
			case "account", "api_key", "api_key_lookup", "member", "data_source", "counter", "plan", "plan_external_id", "plan_locator",
				"json_import", "json_import_locator":
				continue
			}
			items = append(items, it)
			minimum += ddbmeter.WriteUnits(it)
			c := perType[et.Value]
			perType[et.Value] = [2]float64{c[0] + 1, c[1] + float64(ddbmeter.ItemSize(it))}
		}
	}
	var lines []string
	for et, c := range perType {
		lines = append(lines, fmt.Sprintf("%-24s %6.0f items, avg %5.0f bytes", et, c[0], c[1]/c[0]))
	}
	return items, minimum, lines
}

// payloadRecords is the number of records a json_imports body holds (its plans,
// account-wide, left out).
func payloadRecords(body map[string]any) int {
	n := 0
	for _, kind := range []string{"customers", "invoices", "line_items", "transactions", "subscription_events"} {
		switch list := body[kind].(type) {
		case []any:
			n += len(list)
		case []map[string]any:
			n += len(list)
		}
	}
	return n
}

// benchClient calls the local stack's HTTP API with the API key.
type benchClient struct {
	base, key string
	http      *http.Client // nil: http.DefaultClient
}

// send calls the API and returns the status and body; a failed round trip fails b.
func (c *benchClient) send(b testing.TB, method, path string, body any) (int, []byte) {
	b.Helper()
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			b.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		b.Fatal(err)
	}
	req.SetBasicAuth(c.key, "")
	req.Header.Set("Content-Type", "application/json")
	client := c.http
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, raw
}

// do sends a request that must succeed (2xx) and decodes its answer into out.
func (c *benchClient) do(b testing.TB, method, path string, body, out any) {
	b.Helper()
	status, raw := c.send(b, method, path, body)
	if status >= 300 {
		b.Fatalf("%s %s: %d %s", method, path, status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			b.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// importBenchPayload is a json_imports body of n customers numbered from first, each
// with 12 monthly invoices of the plan "gold" (a subscription line item and a payment
// on each) and a subscription_start event.
func importBenchPayload(externalID string, first, n int) map[string]any {
	var customers, invoices, lines, txs, evs []any
	for c := first; c < first+n; c++ {
		cid := "cus-" + strconv.Itoa(c)
		customers = append(customers, map[string]any{"external_id": cid, "name": "Customer " + cid, "email": cid + "@example.com"})
		for m := range 12 {
			iid := cid + "-inv-" + strconv.Itoa(m)
			start := time.Date(2024, time.Month(m+1), 1, 0, 0, 0, 0, time.UTC)
			end := start.AddDate(0, 1, 0)
			invoices = append(invoices, map[string]any{"external_id": iid, "customer_external_id": cid,
				"date": start.Format(time.DateOnly), "currency": "USD"})
			lines = append(lines, map[string]any{"invoice_external_id": iid, "type": "subscription", "amount_in_cents": 1000,
				"plan_external_id": "gold", "subscription_external_id": cid + "-sub", "service_period_start": start.Format(time.DateOnly),
				"service_period_end": end.Format(time.DateOnly), "external_id": iid + "-li"})
			txs = append(txs, map[string]any{"invoice_external_id": iid, "type": "payment", "result": "successful",
				"date": start.Format(time.DateOnly), "external_id": iid + "-tr"})
		}
		evs = append(evs, map[string]any{"customer_external_id": cid, "event_type": "subscription_start", "event_date": "2024-01-01",
			"effective_date": "2024-01-01", "subscription_external_id": cid + "-sub", "plan_external_id": "gold",
			"currency": "USD", "amount_in_cents": 1000, "external_id": cid + "-ev"})
	}
	return map[string]any{"external_id": externalID, "customers": customers,
		"plans":    []any{map[string]any{"external_id": "gold", "name": "Gold", "interval_count": 1, "interval_unit": "month"}},
		"invoices": invoices, "line_items": lines, "transactions": txs, "subscription_events": evs}
}
