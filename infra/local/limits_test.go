package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/model"
)

// testLimits are the demo account's limits in this package's stacks: the tests and
// benchmarks drive it as fast as the emulator answers, past the production 40 requests
// a second, and hold many json_imports in flight at once.
var testLimits = model.Limits{RequestsPerSecond: 100_000, ImportsInFlight: 100_000, ImportRecordsPerMinute: 100_000_000}

const rateLimitedBody = `{"code":429,"message":"Your request rate has exceeded our rate limit.","param":null}`

// rateAccount creates an account with a key and, when rps > 0, its own rate limit.
func rateAccount(t *testing.T, name string, rps int) string {
	t.Helper()
	ctx := context.Background()
	st := testStack.deps.Store
	acc := model.Account{ID: model.NewAccountID(), Name: name, Currency: "USD", TimeZone: "UTC", WeekStartOn: "monday",
		Settings: model.DefaultSettings(), Limits: model.Limits{RequestsPerSecond: rps}}
	if err := st.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	key, err := auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateAPIKey(ctx, acc.ID, auth.Hash(key)); err != nil {
		t.Fatal(err)
	}
	return key
}

// rateRun is what one account saw while driven at a steady rate.
type rateRun struct {
	statuses  map[int]int
	bodies429 map[string]int
	latencies []time.Duration // of the 200s
	failures  int             // no answer
}

func (r rateRun) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	s := slices.Clone(r.latencies)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func (r rateRun) String() string {
	return fmt.Sprintf("statuses %v, no answer %d, p50 %v, p99 %v", r.statuses, r.failures,
		r.percentile(0.50).Round(100*time.Microsecond), r.percentile(0.99).Round(100*time.Microsecond))
}

// drive sends GET path with key at rps for d (open loop: each request starts on its
// tick whatever the earlier ones take), at most rps*d requests in all.
func drive(key, path string, rps int, d time.Duration) rateRun {
	client := &http.Client{Timeout: 30 * time.Second}
	run := rateRun{statuses: map[int]int{}, bodies429: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rps))
	defer tick.Stop()
	for range int(d.Seconds() * float64(rps)) {
		<-tick.C
		wg.Go(func() {
			req, _ := http.NewRequest("GET", testStack.baseURL+path, nil)
			req.SetBasicAuth(key, "")
			start := time.Now()
			resp, err := client.Do(req)
			var body []byte
			if err == nil {
				body, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				run.failures++
			case resp.StatusCode == http.StatusTooManyRequests:
				run.statuses[429]++
				if resp.Header.Get("Retry-After") != "1" {
					body = append(body, " (Retry-After "+resp.Header.Get("Retry-After")+")"...)
				}
				run.bodies429[string(body)]++
			default:
				run.statuses[resp.StatusCode]++
				if resp.StatusCode == http.StatusOK {
					run.latencies = append(run.latencies, took)
				}
			}
		})
	}
	wg.Wait()
	return run
}

// TestRateLimitIsolatesAccounts drives two accounts at the same rate for 10 s at once:
// the noisy one at the default limit (40) is refused past it, with ChartMogul's body,
// and served again once the load stops; the other, whose limit is 200, is never refused
// and its p99 stays within twice its p99 measured alone at the same rate. The one
// measured comparison of the package (docs/benchmarks.md, "Rate limit per account").
// The rate is 50 a second by default, what the emulator on a small shared host serves
// with room to spare (RATE_TEST_RPS=100 is the figure of the docs); when the quiet
// account alone already waits in the emulator's queue (p50 over 250 ms) the comparison
// would measure the emulator, not the limit, and the test says so and skips.
func TestRateLimitIsolatesAccounts(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20-second load; not in -short")
	}
	// RATE_TEST_RPS and RATE_TEST_SECONDS change the load (default 50/s for 10 s).
	rps, span, path := envInt("RATE_TEST_RPS", 50), time.Duration(envInt("RATE_TEST_SECONDS", 10))*time.Second, "/v1/ping"
	noisy, quiet := rateAccount(t, "Noisy", 0), rateAccount(t, "Quiet", 200)

	alone := drive(quiet, path, rps, span)
	t.Logf("quiet account alone at %d/s for %v: %v", rps, span, alone)
	if alone.statuses[200] < rps*int(span.Seconds()) {
		t.Fatalf("the quiet account alone was not served: %v", alone)
	}
	if alone.percentile(0.5) > 250*time.Millisecond {
		t.Skipf("the emulator is saturated at %d requests a second on this host (alone: %v); no comparison", rps, alone)
	}

	var both [2]rateRun
	var wg sync.WaitGroup
	for i, key := range []string{noisy, quiet} {
		wg.Go(func() { both[i] = drive(key, path, rps, span) })
	}
	wg.Wait()
	t.Logf("noisy account (limit %d) beside it: %v", model.DefaultRequestsPerSecond, both[0])
	t.Logf("quiet account (limit 200) beside it: %v", both[1])

	if both[0].statuses[429] == 0 || len(both[0].bodies429) != 1 || both[0].bodies429[rateLimitedBody] == 0 {
		t.Errorf("noisy account's refusals: %v %v", both[0].statuses, both[0].bodies429)
	}
	if both[1].statuses[429] != 0 || both[1].failures != 0 || alone.statuses[429] != 0 {
		t.Errorf("quiet account refused: %v, alone %v", both[1].statuses, alone.statuses)
	}
	if p, base := both[1].percentile(0.99), alone.percentile(0.99); p > 2*base {
		t.Errorf("quiet account's p99 %v beside the noisy one, more than twice its %v alone", p, base)
	}
	time.Sleep(1100 * time.Millisecond) // the window passes
	if status, body := get(t, path, noisy, "", true); status != 200 {
		t.Errorf("noisy account after the load: %d %s", status, body)
	}
}
