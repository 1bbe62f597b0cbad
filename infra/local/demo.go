package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"time"
)

// make demo: a generated account of any size (generatedCustomers), loaded into the running
// `make run` stack through its HTTP API, as a customer's own import would arrive:
// json_imports of up to demoChunk customers, each under the API's 5 MB body limit, a few
// ahead of the pollers, with a progress line until the Metrics API has settled.

const (
	// demoChunk is the most customers per json_import (the import benchmark's size).
	demoChunk = 250
	// demoBodyLimit keeps each body below the API's 5 MB limit.
	demoBodyLimit = 4_500_000
	// demoAhead is how many imports may wait for the pollers at once: enough to keep
	// them busy, few enough that an intake does not queue behind thousands of messages.
	demoAhead = 2
)

// runDemo is `go run ./infra/local demo [-customers N] [-source import|stripe] [-seed N] [-stack FILE]`.
func runDemo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	customers := fs.Int("customers", 1000, "how many customers to generate and import")
	source := fs.String("source", "import", "how they arrive: import (json_imports) or stripe (signed Stripe webhook events)")
	seed := fs.Uint64("seed", 1, "the generated Stripe history's seed (-source stripe)")
	stackFile := fs.String("stack", os.Getenv("LOCAL_STACK_FILE"), "the running stack's file (default .local/stack.json)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *customers < 1 {
		return fmt.Errorf("-customers %d: want at least 1", *customers)
	}
	info, err := readRunningStack(*stackFile)
	if err != nil {
		return err
	}
	api := &demoClient{base: info.BaseURL, key: info.APIKey, http: &http.Client{Timeout: 60 * time.Second}}
	if err := api.call(ctx, http.MethodGet, "/v1/ping", nil, nil); err != nil {
		return fmt.Errorf("no local stack answers at %s (%v): start it with `make run` first", info.BaseURL, err)
	}
	switch *source {
	case "stripe":
		return loadStripeDemo(ctx, api, *customers, *seed, time.Now().UTC(), os.Stdout)
	case "import", "":
		return loadDemo(ctx, api, *customers, time.Now().UTC(), os.Stdout)
	}
	return fmt.Errorf("-source %q: want import or stripe", *source)
}

// loadDemo sends the generated customers in json_imports and reports progress on out
// until the imports are applied and the customers' recomputations have settled.
func loadDemo(ctx context.Context, api *demoClient, customers int, now time.Time, out io.Writer) error {
	start := time.Now()
	var ds struct {
		UUID string `json:"uuid"`
	}
	name := fmt.Sprintf("Generated billing, %d customers (%s)", customers, now.Format("2006-01-02 15:04:05"))
	if err := api.call(ctx, http.MethodPost, "/v1/data_sources", map[string]any{"name": name}, &ds); err != nil {
		return fmt.Errorf("data source: %w", err)
	}
	p := &demoProgress{api: api, ds: ds.UUID, total: customers, now: now, start: start, out: out}
	// The account may hold customers already (the demo portfolio, an earlier make demo):
	// the count starts from theirs.
	if err := p.pollMetrics(ctx); err != nil {
		return err
	}
	p.before = p.counted
	for first := 0; first < customers; {
		if err := p.waitForRoom(ctx); err != nil {
			return err
		}
		n := min(demoChunk, customers-first)
		var body map[string]any
		for {
			gen := generatedCustomers(first, n)
			body = demoPayload(now, fmt.Sprintf("generated-%s-%06d", now.Format("20060102T150405"), first), gen)
			if raw, err := json.Marshal(body); err != nil {
				return err
			} else if len(raw) <= demoBodyLimit || n == 1 {
				p.expectActive(body, now)
				break
			}
			n = (n + 1) / 2
		}
		var imp struct {
			ID string `json:"id"`
		}
		if err := api.callRetrying(ctx, http.MethodPost, "/v1/data_sources/"+ds.UUID+"/json_imports", body, &imp); err != nil {
			return fmt.Errorf("json_import of customers %d to %d: %w", first, first+n-1, err)
		}
		p.imports = append(p.imports, demoImport{id: imp.ID, customers: n})
		first += n
	}
	if err := p.waitForSettled(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nLoaded %d customers in %v; the metrics have settled (%d customers active today in the account). Dashboard: %s/\n",
		customers, time.Since(start).Round(time.Second), p.counted, api.base)
	return nil
}

type demoImport struct {
	id        string
	customers int
	completed bool
}

// demoProgress follows the imports (their status) and the recomputations (the Metrics
// API's count of today's customers against the generated account's), and prints a line.
type demoProgress struct {
	api            *demoClient
	ds             string
	total          int
	now, start     time.Time
	out            io.Writer
	imports        []demoImport
	applied        int // customers of the imports, as their status shows them
	active         int // generated customers active today
	before         int // customers the Metrics API counted today before the import
	counted        int // customers the Metrics API counts today
	lastMetrics    any
	unchangedSince time.Time
}

// expectActive adds the customers of a payload that have a service period holding today.
func (p *demoProgress) expectActive(body map[string]any, now time.Time) {
	active := map[string]bool{}
	invoices := map[string]string{}
	for _, inv := range body["invoices"].([]map[string]any) {
		invoices[inv["external_id"].(string)] = inv["customer_external_id"].(string)
	}
	for _, l := range body["line_items"].([]map[string]any) {
		from, _ := time.Parse(time.RFC3339, l["service_period_start"].(string))
		to, _ := time.Parse(time.RFC3339, l["service_period_end"].(string))
		if !now.Before(from) && now.Before(to) {
			active[invoices[l["invoice_external_id"].(string)]] = true
		}
	}
	p.active += len(active)
}

// waitForRoom returns once fewer than demoAhead imports wait for the pollers.
func (p *demoProgress) waitForRoom(ctx context.Context) error {
	for {
		if err := p.poll(ctx); err != nil {
			return err
		}
		pending := 0
		for _, imp := range p.imports {
			if !imp.completed {
				pending++
			}
		}
		if pending < demoAhead {
			return nil
		}
		if err := pause(ctx, 2*time.Second); err != nil {
			return err
		}
	}
}

// waitForSettled returns once every import is completed, the Metrics API counts the
// generated customers active today, and its answer has not changed for 15 seconds (30
// seconds if the count never matches, as it would not after other changes to the
// account meanwhile).
func (p *demoProgress) waitForSettled(ctx context.Context) error {
	for {
		if err := p.poll(ctx); err != nil {
			return err
		}
		done := p.applied == p.total
		quiet := !p.unchangedSince.IsZero() && time.Since(p.unchangedSince) >= 15*time.Second
		if done && quiet && (p.counted-p.before >= p.active || time.Since(p.unchangedSince) >= 30*time.Second) {
			return nil
		}
		if err := pause(ctx, 5*time.Second); err != nil {
			return err
		}
	}
}

// poll reads the status of the imports not yet completed (in order, up to the first
// that is not) and the metrics, and prints the progress line.
func (p *demoProgress) poll(ctx context.Context) error {
	applied := 0
	for i := range p.imports {
		imp := &p.imports[i]
		if imp.completed {
			applied += imp.customers
			continue
		}
		var st struct {
			Status        string                     `json:"status"`
			StatusDetails map[string]json.RawMessage `json:"status_details"`
		}
		if err := p.api.call(ctx, http.MethodGet, "/v1/data_sources/"+p.ds+"/json_imports/"+imp.id, nil, &st); err != nil {
			return err
		}
		if st.Status == "completed" {
			imp.completed = true
			applied += imp.customers
			continue
		}
		n := len(st.StatusDetails)
		if _, ok := st.StatusDetails["plans"]; ok {
			n--
		}
		applied += n
		break
	}
	p.applied = applied
	if err := p.pollMetrics(ctx); err != nil {
		return err
	}
	elapsed := time.Since(p.start)
	// Progress counts each customer twice: imported, then counted by the metrics.
	counted := min(max(p.counted-p.before, 0), p.active)
	done := float64(p.applied+counted) / float64(p.total+p.active)
	eta := "–"
	if done > 0.02 {
		eta = (time.Duration(float64(elapsed)/done) - elapsed).Round(time.Second).String()
	}
	fmt.Fprintf(p.out, "\r%d of %d customers imported, %d of %d active customers in the metrics, %.1f customers/s, %v elapsed, ETA %s   ",
		p.applied, p.total, counted, p.active, float64(p.applied)/elapsed.Seconds(), elapsed.Round(time.Second), eta)
	return nil
}

// pollMetrics reads today's customer count and the account's metrics over the generated
// period, and notes since when they have not changed.
func (p *demoProgress) pollMetrics(ctx context.Context) error {
	day := p.now.Format(time.DateOnly)
	var count struct {
		Entries []struct {
			Customers int `json:"customers"`
		} `json:"entries"`
	}
	if err := p.api.call(ctx, http.MethodGet, "/v1/metrics/customer-count?start-date="+day+"&end-date="+day+"&interval=day", nil, &count); err != nil {
		return err
	}
	if len(count.Entries) > 0 {
		p.counted = count.Entries[len(count.Entries)-1].Customers
	}
	var all any
	q := "/v1/metrics/all?start-date=" + p.now.AddDate(-2, 0, 0).Format(time.DateOnly) + "&end-date=" + day + "&interval=month"
	if err := p.api.call(ctx, http.MethodGet, q, nil, &all); err != nil {
		return err
	}
	if p.lastMetrics == nil || !reflect.DeepEqual(all, p.lastMetrics) {
		p.lastMetrics, p.unchangedSince = all, time.Now()
	}
	return nil
}

func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// demoClient calls the local stack's HTTP API with the demo account's key.
type demoClient struct {
	base, key string
	http      *http.Client
}

// errRetry marks an answer worth sending the request again for: the emulator was too busy
// for the function's timeout (500, 503) or the connection failed.
var errRetry = errors.New("no answer")

func (c *demoClient) call(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return err
	}
	req.SetBasicAuth(c.key, "")
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s %s: %v", errRetry, method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%w: %s %s: %v", errRetry, method, path, err)
	}
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%w: %s %s: %d %s", errRetry, method, path, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// callRetrying sends a request again, up to five times, while the answer is worth it; a
// json_import sent again with the same body resumes the same import.
func (c *demoClient) callRetrying(ctx context.Context, method, path string, body, out any) error {
	var err error
	for attempt := range 5 {
		if attempt > 0 {
			if err := pause(ctx, time.Duration(attempt)*2*time.Second); err != nil {
				return err
			}
		}
		if err = c.call(ctx, method, path, body, out); !errors.Is(err, errRetry) {
			return err
		}
	}
	return err
}
