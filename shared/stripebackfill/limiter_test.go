package stripebackfill

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// virtualClock is a clock that sleeping moves on, so rates are checked without waiting.
type virtualClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *virtualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *virtualClock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return nil
}

// TestRate: requests leave at most rate a second: n requests take (n-1)/rate seconds of
// the limiter's clock.
func TestRate(t *testing.T) {
	tests := []struct {
		rate float64
		n    int
		want time.Duration
	}{
		{20, 1, 0},
		{20, 21, time.Second},
		{4, 9, 2 * time.Second},
	}
	for _, tt := range tests {
		clock := &virtualClock{now: time.Unix(0, 0)}
		l := newLimiter(tt.rate, clock.Now, clock.Sleep)
		for range tt.n {
			if err := l.wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if got := clock.Now().Sub(time.Unix(0, 0)); got != tt.want {
			t.Errorf("rate %v, %d requests: took %v, want %v", tt.rate, tt.n, got, tt.want)
		}
	}
}

// TestBackOffOn429: a 429 is waited out (Retry-After when given, else doubling from 1 s)
// and the request sent again; after max429Retries the 429 is the answer.
func TestBackOffOn429(t *testing.T) {
	tests := []struct {
		name       string
		refusals   int
		retryAfter string
		wantStatus int
		wantWaits  []time.Duration
	}{
		{"none", 0, "", 200, nil},
		{"two, doubling", 2, "", 200, []time.Duration{time.Second, 2 * time.Second}},
		{"Retry-After", 1, "3", 200, []time.Duration{3 * time.Second}},
		{"too many", max429Retries + 1, "", 429, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				if calls <= tt.refusals {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.WriteHeader(http.StatusOK)
			}))
			defer srv.Close()
			clock := &virtualClock{now: time.Unix(0, 0)}
			tr := &transport{next: http.DefaultTransport, limit: newLimiter(1000, clock.Now, clock.Sleep)}
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			var waits []time.Duration
			for _, d := range clock.slept {
				if d >= time.Second { // the limiter's own spacing is a millisecond
					waits = append(waits, d)
				}
			}
			want := tt.wantWaits
			if len(waits) != len(want) {
				t.Fatalf("waits %v, want %v", waits, want)
			}
			for i := range want {
				if waits[i] != want[i] {
					t.Errorf("waits %v, want %v", waits, want)
				}
			}
			if got := tr.requests.Load(); got != int64(calls) {
				t.Errorf("counted %d requests, server got %d", got, calls)
			}
		})
	}
}
