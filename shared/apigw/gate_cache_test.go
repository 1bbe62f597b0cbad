package apigw_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/testclock"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/store"
)

// recordingCounter keeps each account's counter as the DynamoDB adapter does (the
// current second and its count, the revoked keys, the counter gone once the account is
// deleted) and records every count it is asked for.
type recordingCounter struct {
	mu      sync.Mutex
	seconds map[string]int64
	counts  map[string]int64
	revoked map[string]bool // key ids
	deleted map[string]bool // accounts
	fail    []error         // what the next counts fail with, in turn
	calls   []store.RequestCount
	// during, when set, runs inside the next count (once), before it is counted: the
	// requests that reach the gate while that count is on its way.
	during func()
}

func newRecordingCounter() *recordingCounter {
	return &recordingCounter{seconds: map[string]int64{}, counts: map[string]int64{}, revoked: map[string]bool{}, deleted: map[string]bool{}}
}

func (c *recordingCounter) CountRequest(_ context.Context, r store.RequestCount) (int64, error) {
	c.mu.Lock()
	c.calls = append(c.calls, r)
	during := c.during
	c.during = nil
	c.mu.Unlock()
	if during != nil {
		during()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.fail) > 0 {
		err := c.fail[0]
		c.fail = c.fail[1:]
		return 0, err
	}
	if r.KeyID != "" && (c.deleted[r.AccountID] || c.revoked[r.KeyID]) {
		return 0, store.ErrRevoked
	}
	if c.seconds[r.AccountID] < r.Second {
		c.seconds[r.AccountID], c.counts[r.AccountID] = r.Second, 0
	}
	c.counts[r.AccountID]++
	return c.counts[r.AccountID], nil
}

func (c *recordingCounter) written() []store.RequestCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]store.RequestCount(nil), c.calls...)
}

// gateStep is one request through the gate, at offset from the test's start (the clock
// only moves forward), or something that happens to the account's keys before it.
type gateStep struct {
	at      time.Duration
	account string
	keyID   string
	rate    int
	before  func(c *recordingCounter)
	// during are the requests that reach the gate while this one's count is on its way
	// (a step with them writes).
	during []gateStep
	want   int
	// write is whether the request is counted by a write; newWindow is the write's guess
	// that it opens the account's window.
	write, newWindow bool
}

// TestGateRemembersFullWindows: once an account's window is known past its limit, the
// rest of that second is refused with the same answer and no write; a revoked key or a
// deleted account is refused with the 401 by the next second's first write at the
// latest; what a process remembers is one second's windows.
func TestGateRemembersFullWindows(t *testing.T) {
	revoke := func(c *recordingCounter) { c.revoked["key_1"] = true }
	deleteAccount := func(c *recordingCounter) { c.deleted["acc_a"] = true }
	throttle := func(c *recordingCounter) {
		c.fail = []error{errors.Join(store.ErrThrottled, errors.New("ProvisionedThroughputExceededException"))}
	}
	outage := func(c *recordingCounter) {
		c.fail = []error{errors.New("connection reset"), errors.New("connection reset")}
	}
	ms := time.Millisecond
	tests := []struct {
		name  string
		steps []gateStep
	}{
		{name: "a known-full window is refused without a write until its second ends", steps: []gateStep{
			{at: 250 * ms, rate: 2, want: 200, write: true, newWindow: true},
			{at: 300 * ms, rate: 2, want: 200, write: true},
			{at: 350 * ms, rate: 2, want: 429, write: true},
			{at: 400 * ms, rate: 2, want: 429},
			{at: 999 * ms, rate: 2, want: 429},
			{at: 1000 * ms, rate: 2, want: 200, write: true, newWindow: true},
		}},
		{name: "a limit raised meanwhile is counted again", steps: []gateStep{
			{rate: 1, want: 200, write: true, newWindow: true},
			{rate: 1, want: 429, write: true},
			{rate: 1, want: 429},
			{rate: 5, want: 200, write: true},
		}},
		{name: "accounts are remembered apart", steps: []gateStep{
			{rate: 1, want: 200, write: true, newWindow: true},
			{rate: 1, want: 429, write: true},
			{account: "acc_b", rate: 1, want: 200, write: true, newWindow: true},
			{rate: 1, want: 429},
		}},
		{name: "a key revoked in a known-full window: 429 until the window ends, then 401", steps: []gateStep{
			{keyID: "key_1", rate: 1, want: 200, write: true, newWindow: true},
			{keyID: "key_1", rate: 1, want: 429, write: true},
			{before: revoke, at: 100 * ms, keyID: "key_1", rate: 1, want: 429},
			{at: 1000 * ms, keyID: "key_1", rate: 1, want: 401, write: true, newWindow: true},
			{at: 1100 * ms, keyID: "key_1", rate: 1, want: 401, write: true},
		}},
		{name: "a key revoked in a window not full: 401 at once", steps: []gateStep{
			{keyID: "key_1", rate: 5, want: 200, write: true, newWindow: true},
			{before: revoke, keyID: "key_1", rate: 5, want: 401, write: true},
			{keyID: "key_2", rate: 5, want: 200, write: true},
		}},
		{name: "an account deleted in a known-full window: 429 until the window ends, then 401", steps: []gateStep{
			{keyID: "key_2", rate: 1, want: 200, write: true, newWindow: true},
			{keyID: "key_2", rate: 1, want: 429, write: true},
			{before: deleteAccount, at: 500 * ms, keyID: "key_2", rate: 1, want: 429},
			{at: 1000 * ms, keyID: "key_2", rate: 1, want: 401, write: true, newWindow: true},
		}},
		{name: "a throttled counter: the rest of the second is refused without a write", steps: []gateStep{
			{before: throttle, rate: 100, want: 429, write: true, newWindow: true},
			{at: 900 * ms, rate: 100, want: 429},
			{at: 1000 * ms, rate: 100, want: 200, write: true, newWindow: true},
		}},
		{name: "a failing counter admits, and no count is remembered", steps: []gateStep{
			{before: outage, rate: 1, want: 200, write: true, newWindow: true},
			{rate: 1, want: 200, write: true},
			{rate: 1, want: 200, write: true},
			{rate: 1, want: 429, write: true},
		}},
		{name: "a request while the window's first count is on its way adds to the window", steps: []gateStep{
			{rate: 5, want: 200, write: true, newWindow: true, during: []gateStep{
				{rate: 5, want: 200, write: true},
			}},
		}},
		{name: "a count that ends after the next second began does not make the gate forget that second", steps: []gateStep{
			{at: 900 * ms, account: "acc_b", rate: 1, want: 200, write: true, newWindow: true, during: []gateStep{
				{at: 1000 * ms, rate: 1, want: 200, write: true, newWindow: true},
				{at: 1000 * ms, rate: 1, want: 429, write: true},
			}},
			{at: 1000 * ms, rate: 1, want: 429},
			{at: 1000 * ms, account: "acc_b", rate: 1, want: 200, write: true, newWindow: true},
		}},
	}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := testclock.At(start)
			counter := newRecordingCounter()
			h := apigw.Wrap(apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
				return apigw.JSON(200, map[string]string{"data": "pong!"})
			}}, apigw.NewGate(counter, clock.Now))
			var run func(name string, steps []gateStep)
			run = func(name string, steps []gateStep) {
				for i, s := range steps {
					if s.before != nil {
						s.before(counter)
					}
					if d := start.Add(s.at).Sub(clock.Now()); d > 0 {
						clock.Advance(d)
					}
					if s.during != nil {
						counter.during = func() { run(fmt.Sprintf("%s during step %d", name, i), s.during) }
					}
					account := s.account
					if account == "" {
						account = "acc_a"
					}
					ev := event(account, float64(s.rate))
					if s.keyID != "" {
						ev.RequestContext.Authorizer.Lambda[apigw.AuthorizerKeyIDKey] = s.keyID
					}
					before := len(counter.written())
					resp, _ := h(context.Background(), ev)
					writes := counter.written()[before:]
					if resp.StatusCode != s.want {
						t.Fatalf("%s step %d: %d %s, want %d", name, i, resp.StatusCode, resp.Body, s.want)
					}
					switch s.want {
					case http.StatusTooManyRequests:
						if resp.Body != rateLimited || resp.Headers["Retry-After"] != "1" {
							t.Fatalf("%s step %d: %s %v", name, i, resp.Body, resp.Headers)
						}
					case http.StatusUnauthorized:
						if resp.Body != `{"code":401,"message":"No valid API key provided","param":null}` {
							t.Fatalf("%s step %d: %s", name, i, resp.Body)
						}
					}
					// A step's own write comes first; the steps run during it follow.
					if s.write != (len(writes) > 0) || s.write && writes[0].NewWindow != s.newWindow {
						t.Fatalf("%s step %d: writes %+v, want a write %v (opening the window %v)", name, i, writes, s.write, s.newWindow)
					}
				}
			}
			run("", tt.steps)
		})
	}
}
