package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// benchReader reads an account through the HTTP API at a steady rate, as someone using
// the dashboard does while an import runs: a page of the customer list (the dashboard's
// 25), a customer with its subscriptions or its activities, and now and then the
// overview's two Metrics API requests (all and mrr over 2024 by month), in turn (readKinds).
// Each read starts on time whatever the earlier ones take (a slow answer does not slow
// the client down), and each answer's status and latency are kept.
type benchReader struct {
	base, key string
	client    *http.Client
	stop      chan struct{}
	wg        sync.WaitGroup

	mu       sync.Mutex
	samples  []readSample
	customer string // a uuid from the last listing, for the single-customer read
}

type readSample struct {
	kind    string
	status  int // 0: no answer (err)
	latency time.Duration
	err     error
}

// readKinds are the reads, taken in turn: one in four is a Metrics API request, which reads
// every write shard of the account's series (36 DynamoDB requests).
var readKinds = []string{"customers", "customer", "subscriptions", "metrics all", "customers", "customer", "activities", "metrics mrr"}

// startBenchReader starts reading at rps requests per second until Stop.
func startBenchReader(base, key string, rps int) *benchReader {
	r := &benchReader{base: base, key: key, stop: make(chan struct{}),
		// Longer than the functions' 10 s timeout, so that a slow answer is measured.
		client: &http.Client{Timeout: 30 * time.Second}}
	r.wg.Go(func() {
		tick := time.NewTicker(time.Second / time.Duration(rps))
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-r.stop:
				return
			case <-tick.C:
				kind := readKinds[i%len(readKinds)]
				r.wg.Go(func() { r.read(kind) })
			}
		}
	})
	return r
}

func (r *benchReader) read(kind string) {
	var path string
	switch kind {
	case "customers":
		path = "/v1/customers?per_page=25"
	case "customer", "subscriptions", "activities":
		r.mu.Lock()
		uuid := r.customer
		r.mu.Unlock()
		if uuid == "" {
			return // nothing listed yet
		}
		path = "/v1/customers/" + uuid
		if kind != "customer" {
			path += "/" + kind
		}
	case "metrics all":
		path = "/v1/metrics/all?start-date=2024-01-01&end-date=2024-12-31&interval=month"
	default:
		path = "/v1/metrics/mrr?start-date=2024-01-01&end-date=2024-12-31&interval=month"
	}
	s := readSample{kind: kind}
	start := time.Now()
	var body []byte
	req, err := http.NewRequest(http.MethodGet, r.base+path, nil)
	if err == nil {
		req.SetBasicAuth(r.key, "")
		var resp *http.Response
		if resp, err = r.client.Do(req); err == nil {
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			s.status = resp.StatusCode
		}
	}
	s.latency, s.err = time.Since(start), err
	r.mu.Lock()
	defer r.mu.Unlock()
	r.samples = append(r.samples, s)
	if kind == "customers" && s.status == http.StatusOK {
		var page struct {
			Entries []struct {
				UUID string `json:"uuid"`
			} `json:"entries"`
		}
		if json.Unmarshal(body, &page) == nil && len(page.Entries) > 0 {
			r.customer = page.Entries[rand.IntN(len(page.Entries))].UUID
		}
	}
}

// Stop stops reading, waits for the reads in flight and reports.
func (r *benchReader) Stop() readReport {
	close(r.stop)
	r.wg.Wait()
	return r.Report()
}

// Report is the reads answered so far.
func (r *benchReader) Report() readReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return newReadReport(r.samples)
}

// readReport is the reads' latencies and failures, for every kind and all together.
type readReport struct {
	rows []readRow // one per kind, then "all"
}

type readRow struct {
	kind                string
	n                   int
	p50, p99, max       time.Duration
	over1s, over10s     int
	status5xx, other4xx int
	noAnswer            int
	firstFailure        string
}

func newReadReport(samples []readSample) readReport {
	var rep readReport
	var kinds []string
	for _, k := range readKinds {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	for _, kind := range append(kinds, "all") {
		row := readRow{kind: kind}
		var lat []time.Duration
		for _, s := range samples {
			if kind != "all" && s.kind != kind {
				continue
			}
			row.n++
			lat = append(lat, s.latency)
			switch {
			case s.err != nil:
				row.noAnswer++
			case s.status >= 500:
				row.status5xx++
			case s.status >= 300:
				row.other4xx++
			}
			if s.latency > time.Second {
				row.over1s++
			}
			if s.latency > 10*time.Second {
				row.over10s++
			}
			if row.firstFailure == "" && (s.err != nil || s.status >= 300) {
				row.firstFailure = fmt.Sprintf("%s: status %d %v", s.kind, s.status, s.err)
			}
		}
		if len(lat) > 0 {
			row.p50, row.p99, row.max = percentile(lat, 50), percentile(lat, 99), slices.Max(lat)
		}
		rep.rows = append(rep.rows, row)
	}
	return rep
}

// all is the row of every read.
func (rep readReport) all() readRow { return rep.rows[len(rep.rows)-1] }

func (rep readReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-13s %6s %8s %8s %8s %6s %6s %5s %5s %5s\n", "read", "n", "p50 ms", "p99 ms", "max ms", ">1s", ">10s", "5xx", "4xx", "none")
	for _, r := range rep.rows {
		fmt.Fprintf(&b, "%-13s %6d %8d %8d %8d %6d %6d %5d %5d %5d\n", r.kind, r.n, r.p50.Milliseconds(), r.p99.Milliseconds(),
			r.max.Milliseconds(), r.over1s, r.over10s, r.status5xx, r.other4xx, r.noAnswer)
	}
	if f := rep.all().firstFailure; f != "" {
		fmt.Fprintf(&b, "first failure: %s\n", f)
	}
	return b.String()
}
