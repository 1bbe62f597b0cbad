package stripebackfill

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// limiter spaces requests at least one interval apart (no burst): at most rate a
// second, however many goroutines ask.
type limiter struct {
	interval time.Duration
	now      func() time.Time
	sleep    func(context.Context, time.Duration) error

	mu   sync.Mutex
	next time.Time
}

func newLimiter(rate float64, now func() time.Time, sleep func(context.Context, time.Duration) error) *limiter {
	return &limiter{interval: time.Duration(float64(time.Second) / rate), now: now, sleep: sleep}
}

// wait returns when the caller may send its request.
func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := l.now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	l.next = at.Add(l.interval)
	l.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		return l.sleep(ctx, d)
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Back-off on Stripe's 429: Retry-After when Stripe sends it, else 1 s doubling, at
// most max429Retries times for one request, each wait at most max429Wait.
const (
	max429Retries = 5
	max429Wait    = 30 * time.Second
)

// transport sends the reader's requests through the limiter, counts them, and sends a
// GET again after a 429 once the back-off has passed (stripe-go retries network errors
// and the failures Stripe marks retryable; a rate limit it leaves to the caller).
type transport struct {
	next     http.RoundTripper
	limit    *limiter
	requests atomic.Int64
	limited  atomic.Int64 // 429s received
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		if err := t.limit.wait(req.Context()); err != nil {
			return nil, err
		}
		t.requests.Add(1)
		resp, err := t.next.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || req.Method != http.MethodGet || attempt >= max429Retries {
			return resp, err
		}
		t.limited.Add(1)
		wait := backoff(attempt, resp.Header.Get("Retry-After"))
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		slog.InfoContext(req.Context(), "stripe rate limit: waiting", "path", req.URL.Path, "wait_ms", wait.Milliseconds())
		if err := t.limit.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// backoff is the wait before the attempt after attempt (from 0) was refused.
func backoff(attempt int, retryAfter string) time.Duration {
	if s, err := strconv.Atoi(retryAfter); err == nil && s > 0 {
		return min(time.Duration(s)*time.Second, max429Wait)
	}
	return min(time.Second<<attempt, max429Wait)
}
