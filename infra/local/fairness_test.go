package main

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/repo"
)

// TestFairLanes measures the import lanes (docs/architecture.md, "Lanes") through the
// whole local stack: account B imports FAIRNESS_B customers alone; then account A
// imports FAIRNESS_A customers and B, 5 s later, FAIRNESS_B more (the import
// benchmark's payload: 12 monthly invoices each). B's import must complete before
// A's; the times of B alone and beside A, their ratio and A's time are logged
// (docs/benchmarks.md, "Fair lanes"). make test runs it at A = 400, B = 20 (A
// twice the lane window); make bench-fairness at A = 3,000, B = 200.
func TestFairLanes(t *testing.T) {
	sizeA, sizeB := envInt("FAIRNESS_A", 400), envInt("FAIRNESS_B", 20)
	ctx := context.Background()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	s, err := newStack(ctx, options{root: root, addr: "127.0.0.1:0", apiKey: "fair_a_0123456789abcdef",
		motoOutput: io.Discard, pollers: importBenchPollers})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const keyB = "fair_b_0123456789abcdef"
	if _, err := seedDemoAccount(ctx, s.deps, keyB); err != nil {
		t.Fatal(err)
	}
	a := &benchClient{base: s.baseURL, key: s.apiKey}
	b := &benchClient{base: s.baseURL, key: keyB}

	start := time.Now()
	ds, ids := postImports(t, b, "alone", sizeB)
	waitImported(t, b, ds, ids)
	alone := time.Since(start)
	t.Logf("B alone: %d customers imported in %v", sizeB, alone.Round(time.Millisecond))
	waitForJobs(t, s)

	var wg sync.WaitGroup
	var beside, timeA time.Duration
	startA := time.Now()
	wg.Go(func() {
		ds, ids := postImports(t, a, "big", sizeA)
		waitImported(t, a, ds, ids)
		timeA = time.Since(startA)
	})
	time.Sleep(5 * time.Second)
	startB := time.Now()
	ds, ids = postImports(t, b, "beside", sizeB)
	waitImported(t, b, ds, ids)
	beside = time.Since(startB)
	doneB := time.Since(startA)
	wg.Wait()
	ratio := float64(beside) / float64(alone)
	t.Logf("B beside A: %d customers imported in %v (%.2f× B alone), completed %v after A's start; A: %d customers in %v",
		sizeB, beside.Round(time.Millisecond), ratio, doneB.Round(time.Millisecond), sizeA, timeA.Round(time.Millisecond))
	if doneB >= timeA {
		t.Errorf("B's import completed %v after A's start, A's at %v: B waited for A", doneB, timeA)
	} else {
		t.Logf("B completed first, %v before A", (timeA - doneB).Round(time.Millisecond))
	}
	waitForJobs(t, s)
}
