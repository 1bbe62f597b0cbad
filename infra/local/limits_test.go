package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
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
	run := newRateRun()
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

// add merges another run into r.
func (r *rateRun) add(o rateRun) {
	for k, v := range o.statuses {
		r.statuses[k] += v
	}
	for k, v := range o.bodies429 {
		r.bodies429[k] += v
	}
	r.latencies = append(r.latencies, o.latencies...)
	r.failures += o.failures
}

func newRateRun() rateRun { return rateRun{statuses: map[int]int{}, bodies429: map[string]int{}} }

// TestRateLimitIsolatesAccounts drives a quiet account (limit 200) alone, then beside a
// polite account at 35 requests a second (under the default 40), then beside a noisy
// account at the same rate as the quiet one (default limit 40): the noisy one is refused
// past its limit with ChartMogul's body and served again once the load stops; the quiet
// and the polite ones are never refused. The phases alternate in rounds of two seconds
// (RATE_TEST_SECONDS of each, default 10) so that whatever else the host runs weighs on
// all alike; the rate is RATE_TEST_RPS (default 50). The quiet account's p50 and p99 in
// each phase are logged (docs/benchmarks.md, "Rate limit per account"); with
// RATE_TEST_P99=1 its p99 beside the noisy account must also stay within twice its p99
// alone. That comparison is not asserted by default: the emulator answers one DynamoDB
// request at a time, so any neighbour's admitted requests (40 a second and more, as
// fixed windows go) and the refused ones' authorizer reads queue in front of the quiet
// account's, which measures the emulator rather than the limit; on AWS the accounts share
// only DynamoDB's capacity.
func TestRateLimitIsolatesAccounts(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30-second load; not in -short")
	}
	rps, seconds, path := envInt("RATE_TEST_RPS", 50), envInt("RATE_TEST_SECONDS", 10), "/v1/ping"
	const round, politeRate = 2 * time.Second, 35
	quiet := rateAccount(t, "Quiet", 200)
	polite, noisy := rateAccount(t, "Polite", 0), rateAccount(t, "Noisy", 0)

	alone, besidePolite, besideNoisy := newRateRun(), newRateRun(), newRateRun()
	politeRun, noisyRun := newRateRun(), newRateRun()
	beside := func(other string, otherRate int) (rateRun, rateRun) {
		var q, o rateRun
		var wg sync.WaitGroup
		wg.Go(func() { q = drive(quiet, path, rps, round) })
		wg.Go(func() { o = drive(other, path, otherRate, round) })
		wg.Wait()
		return q, o
	}
	for range max(1, seconds/2) {
		alone.add(drive(quiet, path, rps, round))
		q, o := beside(polite, politeRate)
		besidePolite.add(q)
		politeRun.add(o)
		q, o = beside(noisy, rps)
		besideNoisy.add(q)
		noisyRun.add(o)
	}
	t.Logf("quiet account (limit 200) alone at %d/s: %v", rps, alone)
	t.Logf("quiet account beside the polite one: %v", besidePolite)
	t.Logf("polite account (limit %d) at %d/s: %v", model.DefaultRequestsPerSecond, politeRate, politeRun)
	t.Logf("quiet account beside the noisy one: %v", besideNoisy)
	t.Logf("noisy account (limit %d) at %d/s: %v", model.DefaultRequestsPerSecond, rps, noisyRun)
	if alone.failures > 0 || alone.statuses[200] != len(alone.latencies) {
		t.Fatalf("the quiet account alone was not served: %v", alone)
	}
	if noisyRun.statuses[429] == 0 || len(noisyRun.bodies429) != 1 || noisyRun.bodies429[rateLimitedBody] == 0 {
		t.Errorf("noisy account's refusals: %v %v", noisyRun.statuses, noisyRun.bodies429)
	}
	for name, r := range map[string]rateRun{"alone": alone, "beside the polite one": besidePolite, "beside the noisy one": besideNoisy,
		"polite": politeRun} {
		if r.statuses[429] != 0 || r.failures != 0 {
			t.Errorf("%s: refused or unanswered: %v", name, r)
		}
	}
	time.Sleep(1100 * time.Millisecond) // the window passes
	if status, body := get(t, path, noisy, "", true); status != 200 {
		t.Errorf("noisy account after the load: %d %s", status, body)
	}
	if alone.percentile(0.5) > 250*time.Millisecond {
		t.Logf("the emulator is saturated at %d requests a second on this host (alone: %v); latencies not compared", rps, alone)
		return
	}
	if p, base := besideNoisy.percentile(0.99), alone.percentile(0.99); os.Getenv("RATE_TEST_P99") == "1" && p > 2*base {
		t.Errorf("quiet account's p99 %v beside the noisy account, more than twice its %v alone", p, base)
	}
}
