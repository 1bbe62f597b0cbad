package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/synthetic"
	"github.com/subsight/subsight/shared/accountseries"
)

// BenchmarkMetricsHTTP measures the Metrics API over HTTP through a whole local stack
// (router, authorizer, handlers, moto): for each account size of METRICS_BENCH_SIZES
// (default 1000,10000) a fresh stack, an account of that many customers with two years
// of monthly billing (2023–2024), then every endpoint and interval over those two years,
// and a filtered request and an activities page. Per case it reports the latency of
// the requests (p50 and p95 over the benchmark's iterations: -benchtime 20x gives 20
// samples, -benchtime 30s as many as fit), the time spent in DynamoDB calls, and the DynamoDB reads of one request:
// requests, items and read units estimated from the item sizes (ddbmeter.ReadRecorder;
// moto's capacity figures are placeholders). A table of every case is printed at the
// end (docs/benchmarks.md, "Metrics API").
//
// The series are stored with accountseries.Series.Seed, which leaves what Series.Apply
// leaves for each customer (TestSeedEqualsApply) with BatchWriteItem instead of a
// transaction per customer change, much faster on the emulator; the import and recompute
// chain has benchmarks of its own.
func BenchmarkMetricsHTTP(b *testing.B) {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	var rows []metricsBenchRow
	for _, n := range metricsBenchSizes(b) {
		mb := startMetricsBench(b, n)
		for _, c := range metricsBenchCases() {
			name := fmt.Sprintf("customers=%d/%s", n, c.name)
			b.Run(name, func(b *testing.B) { rows = append(rows, mb.measure(b, n, c)) })
		}
		mb.stack.Close()
	}
	printMetricsBenchTable(rows)
}

func metricsBenchSizes(b *testing.B) []int {
	raw := os.Getenv("METRICS_BENCH_SIZES")
	if raw == "" {
		raw = "1000,10000"
	}
	var out []int
	for _, f := range strings.Split(raw, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("METRICS_BENCH_SIZES=%q: want customer counts such as 1000,10000", raw)
		}
		out = append(out, n)
	}
	return out
}

// metricsBenchCase is one request shape.
type metricsBenchCase struct {
	name, path string
	query      url.Values
}

var metricsBenchEndpoints = []string{"all", "mrr", "arr", "arpa", "asp", "customer-count", "customer-churn-rate",
	"mrr-churn-rate", "ltv"}

var metricsBenchIntervals = []string{"day", "week", "month", "quarter", "year"}

func metricsBenchCases() []metricsBenchCase {
	twoYears := func(kv ...string) url.Values {
		q := url.Values{"start-date": {"2023-01-01"}, "end-date": {"2024-12-31"}}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q
	}
	var out []metricsBenchCase
	for _, ep := range metricsBenchEndpoints {
		for _, iv := range metricsBenchIntervals {
			out = append(out, metricsBenchCase{ep + "/" + iv, "/v1/metrics/" + ep, twoYears("interval", iv)})
		}
	}
	return append(out,
		metricsBenchCase{"all/day/geo2-plans2", "/v1/metrics/all",
			twoYears("interval", "day", "geo", "US,DE", "plans", "bench-0,Bench 1")},
		metricsBenchCase{"activities/per_page=200", "/v1/activities", url.Values{"start-date": {"2024-06-01"}}})
}

// metricsBench is one stack with one seeded account.
type metricsBench struct {
	stack  *stack
	reads  *ddbmeter.ReadRecorder
	client benchClient
}

func startMetricsBench(b *testing.B, customers int) *metricsBench {
	ctx := context.Background()
	root, err := repo.Root()
	if err != nil {
		b.Fatal(err)
	}
	mb := &metricsBench{reads: &ddbmeter.ReadRecorder{}}
	// No sweeper during the measurements: its wake-up query would share moto with them.
	mb.stack, err = newStack(ctx, options{root: root, addr: "127.0.0.1:0", demoLimits: testLimits, motoOutput: io.Discard,
		scheduleEvery: 24 * time.Hour, awsConfig: mb.reads.Attach})
	if err != nil {
		b.Fatal(err)
	}
	s := mb.stack
	mb.client = benchClient{base: s.baseURL, key: s.apiKey, http: &http.Client{Timeout: 5 * time.Minute}}
	// moto serves a filtered request's dozens of queries one after another, each a few
	// milliseconds plus its answer's items: possibly beyond the functions' 10 s timeout
	// in the emulator on a busy host, a fraction of a second on DynamoDB. The benchmark
	// measures it rather than the cut.
	for _, r := range s.router.routes {
		r.timeout = max(r.timeout, 2*time.Minute)
	}
	seedMetricsBench(b, s, customers)
	return mb
}

// seedMetricsBench gives the stack's demo account five plans and the series and
// activities of that many synthetic customers.
func seedMetricsBench(b *testing.B, s *stack, customers int) {
	ctx := context.Background()
	_, plans, err := synthetic.Source(ctx, s.deps.Store, s.accountID)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	batch := make([]accountseries.SeedCustomer, customers)
	for i := range batch {
		res, attrs := synthetic.Customer(i, plans)
		batch[i] = accountseries.SeedCustomer{Result: res, Attrs: attrs}
	}
	if err := s.deps.API().Series().Seed(ctx, s.accountID, batch); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d customers seeded in %s", customers, time.Since(start).Round(time.Second))
}

// get sends one authenticated request and fails on anything but a 200.
func (mb *metricsBench) get(b *testing.B, path string, q url.Values) {
	if status, body := mb.client.send(b, http.MethodGet, path+"?"+q.Encode(), nil); status != http.StatusOK {
		b.Fatalf("GET %s: %d %.300s", path, status, body)
	}
}

// metricsBenchRow is one case's figures.
type metricsBenchRow struct {
	customers        int
	name             string
	samples          int
	p50, p95, ddbP50 time.Duration
	reads            ddbmeter.Reads // of one request
}

func (mb *metricsBench) measure(b *testing.B, customers int, c metricsBenchCase) metricsBenchRow {
	// A first request, not timed, for the reads of one request (every request reads the
	// same: the handlers keep no cache) and a warm connection.
	mb.reads.Reset()
	mb.get(b, c.path, c.query)
	one := mb.reads.Reads()
	var latencies, ddb []time.Duration
	for b.Loop() {
		mb.reads.Reset()
		start := time.Now()
		mb.get(b, c.path, c.query)
		latencies = append(latencies, time.Since(start))
		ddb = append(ddb, mb.reads.Reads().Elapsed)
	}
	row := metricsBenchRow{customers: customers, name: c.name, samples: len(latencies),
		p50: percentile(latencies, 50), p95: percentile(latencies, 95), ddbP50: percentile(ddb, 50), reads: one}
	b.ReportMetric(float64(row.p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(row.p95.Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(row.ddbP50.Microseconds())/1000, "ddb-p50-ms")
	b.ReportMetric(one.Units, "RCU/req")
	b.ReportMetric(float64(one.Items), "items/req")
	b.ReportMetric(float64(one.Requests), "ddb-requests/req")
	return row
}

func printMetricsBenchTable(rows []metricsBenchRow) {
	fmt.Println("\n| customers | case | samples | p50 ms | p95 ms | DynamoDB p50 ms | DynamoDB requests | items | RCU |")
	fmt.Println("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Printf("| %d | %s | %d | %.1f | %.1f | %.1f | %d | %d | %.1f |\n", r.customers, r.name, r.samples,
			millis(r.p50), millis(r.p95), millis(r.ddbP50), r.reads.Requests, r.reads.Items, r.reads.Units)
	}
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
