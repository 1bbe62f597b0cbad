package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
)

// BenchmarkFreshness measures, through a whole local stack, how long a change made
// through the API takes to show: from the start of POST
// /v1/import/customers/{uuid}/invoices (a new customer's first invoice, paid, its
// service period running today) until the customer (GET /v1/customers/{uuid}: its MRR)
// and the account's metrics (GET /v1/metrics/mrr for today: the account's MRR) both
// reflect it, read every 50 ms. FRESHNESS_SAMPLES changes (default 20), one at a time,
// in one account. With FRESHNESS_IMPORT_CUSTOMERS (default 0) another account imports
// that many customers at the same time (the import benchmark's payload, by HTTP, and
// their recomputations): the samples are taken while that runs, which is the fairness
// figure (docs/benchmarks.md, "Fairness and freshness"). It prints p50, p95 and the
// slowest sample, and how far the other account's import had got.
func BenchmarkFreshness(b *testing.B) {
	samples := envInt("FRESHNESS_SAMPLES", 20)
	background := envInt("FRESHNESS_IMPORT_CUSTOMERS", 0)
	for range b.N {
		b.StopTimer()
		runFreshness(b, samples, background)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

func runFreshness(b *testing.B, samples, background int) {
	ctx := context.Background()
	root, err := repo.Root()
	if err != nil {
		b.Fatal(err)
	}
	var calls ddbmeter.Calls
	s, err := newStack(ctx, options{root: root, addr: "127.0.0.1:0", demoLimits: testLimits, apiKey: "bench_key_0123456789abcdef",
		motoOutput: io.Discard, pollers: importBenchPollers, awsConfig: calls.Attach})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const keyB = "fresh_key_0123456789abcdef"
	if _, err := seedDemoAccount(ctx, s.deps, keyB); err != nil {
		b.Fatal(err)
	}
	a := &benchClient{base: s.baseURL, key: s.apiKey}
	acct := &benchClient{base: s.baseURL, key: keyB}

	var ds, plan struct {
		UUID string `json:"uuid"`
	}
	acct.do(b, "POST", "/v1/data_sources", map[string]any{"name": "fresh"}, &ds)
	acct.do(b, "POST", "/v1/plans", map[string]any{"data_source_uuid": ds.UUID, "name": "Gold", "interval_count": 1,
		"interval_unit": "month", "external_id": "gold"}, &plan)

	// The other account's import, sent before the first sample and running throughout.
	started := time.Now()
	if background > 0 {
		var dsA struct {
			UUID string `json:"uuid"`
		}
		a.do(b, "POST", "/v1/data_sources", map[string]any{"name": "bulk"}, &dsA)
		for first := 0; first < background; first += importBenchChunk {
			a.do(b, "POST", "/v1/data_sources/"+dsA.UUID+"/json_imports",
				importBenchPayload(fmt.Sprintf("bulk-%d", first), first, min(importBenchChunk, background-first)), nil)
		}
	}

	today := time.Now().UTC().Truncate(24 * time.Hour)
	var total int64
	var took []time.Duration
	firstSample := time.Now()
	b.StartTimer()
	for i := range samples {
		amount := int64(1000 + 100*i)
		var cust struct {
			UUID string `json:"uuid"`
		}
		acct.do(b, "POST", "/v1/customers", map[string]any{"data_source_uuid": ds.UUID, "external_id": fmt.Sprintf("fresh-%d", i),
			"name": fmt.Sprintf("Fresh %d", i)}, &cust)
		invoice := map[string]any{"invoices": []any{map[string]any{"external_id": fmt.Sprintf("fresh-inv-%d", i),
			"date": today.Format(time.DateOnly), "currency": "USD", "data_source_uuid": ds.UUID,
			"line_items": []any{map[string]any{"type": "subscription", "subscription_external_id": fmt.Sprintf("fresh-sub-%d", i),
				"plan_uuid": plan.UUID, "service_period_start": today.Format(time.DateOnly),
				"service_period_end": today.AddDate(0, 1, 0).Format(time.DateOnly), "amount_in_cents": amount, "quantity": 1}},
			"transactions": []any{map[string]any{"type": "payment", "result": "successful", "date": today.Format(time.DateOnly)}}}}}
		total += amount
		start := time.Now()
		acct.do(b, "POST", "/v1/import/customers/"+cust.UUID+"/invoices", invoice, nil)
		for !customerShows(b, acct, cust.UUID, amount) || !metricsShow(b, acct, today, total) {
			if time.Since(start) > 5*time.Minute {
				b.Fatalf("sample %d: not shown after %v", i, time.Since(start))
			}
			time.Sleep(50 * time.Millisecond)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	progress := "no other import"
	if background > 0 {
		progress = fmt.Sprintf("another account's import of %d customers, sent in %v before the first sample; at the last sample "+
			"%d of its messages were still in the import queue, %d in the recompute queue and %d in the fold queue",
			background, firstSample.Sub(started).Round(time.Second), queueLength(b, s, "ImportQueue"),
			queueLength(b, s, "RecomputeQueue"), queueLength(b, s, "SeriesFoldQueue"))
	}
	slices.Sort(took)
	p := func(q float64) time.Duration { return took[min(len(took)-1, int(q*float64(len(took))))] }
	b.ReportMetric(p(0.5).Seconds(), "p50_s")
	b.ReportMetric(p(0.95).Seconds(), "p95_s")
	b.ReportMetric(took[len(took)-1].Seconds(), "max_s")
	fmt.Printf("Freshness of %d changes made through the API: p50 %v, p95 %v, slowest %v; %s\n",
		len(took), p(0.5).Round(10*time.Millisecond), p(0.95).Round(10*time.Millisecond),
		took[len(took)-1].Round(10*time.Millisecond), progress)
	// The path of a change, for the projection on AWS: the requests each of its functions
	// made in sequence per invocation.
	fns := calls.Functions()
	for _, fn := range []string{"ImportCustomerInvoicesFunction", "JobsWorkerFunction:JobsQueue"} {
		requests, seq := fns[fn].PerInvocation()
		fmt.Printf("  %s: %d invocations, %.1f requests each, %.1f in sequence\n", fn, fns[fn].Invocations, requests, seq)
	}
}

// customerShows reports whether the customer's MRR is mrr (cents).
func customerShows(b *testing.B, c *benchClient, uuid string, mrr int64) bool {
	status, raw := c.send(b, "GET", "/v1/customers/"+uuid, nil)
	var got struct {
		MRR float64 `json:"mrr"`
	}
	return status == 200 && json.Unmarshal(raw, &got) == nil && int64(got.MRR) == mrr
}

// metricsShow reports whether the account's MRR today, by the Metrics API, is mrr.
func metricsShow(b *testing.B, c *benchClient, day time.Time, mrr int64) bool {
	d := day.Format(time.DateOnly)
	status, raw := c.send(b, "GET", "/v1/metrics/mrr?start-date="+d+"&end-date="+d+"&interval=day", nil)
	var got struct {
		Entries []struct {
			MRR float64 `json:"mrr"`
		} `json:"entries"`
	}
	return status == 200 && json.Unmarshal(raw, &got) == nil && len(got.Entries) > 0 && int64(got.Entries[len(got.Entries)-1].MRR) == mrr
}
