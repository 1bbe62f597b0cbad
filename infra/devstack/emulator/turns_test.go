package emulator

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

// heldClient answers each request when the test lets it, and records the order in which
// requests reached it.
type heldClient struct {
	mu      sync.Mutex
	reached []string
	let     chan struct{}
}

func (c *heldClient) Do(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.reached = append(c.reached, r.URL.Path)
	c.mu.Unlock()
	<-c.let
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
}

func (c *heldClient) order() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reached...)
}

// TestTurns: dynamoDBInFlight requests at a time reach the emulator; of the waiting ones,
// the interactive go first, each kind in the order it came; a waiter whose context ends
// leaves the line without taking a slot from anyone.
func TestTurns(t *testing.T) {
	c := &heldClient{let: make(chan struct{})}
	tr := &turns{next: c, free: dynamoDBInFlight}
	var wg sync.WaitGroup
	send := func(ctx context.Context, path string) {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://emulator"+path, nil)
			if resp, err := tr.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); len(c.order()) < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d requests reached the emulator, want %d: %v", len(c.order()), n, c.order())
			}
		}
	}
	waiting := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			tr.mu.Lock()
			got := len(tr.waiting[0]) + len(tr.waiting[1])
			tr.mu.Unlock()
			if got == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d requests wait, want %d", got, n)
			}
		}
	}
	ctx := context.Background()
	for range dynamoDBInFlight {
		send(ctx, "/busy")
	}
	waitFor(dynamoDBInFlight)
	// In line: two workers', then an abandoned caller, then two callers'.
	send(ctx, "/worker-1")
	waiting(1)
	send(ctx, "/worker-2")
	waiting(2)
	gone, cancel := context.WithCancel(Interactive(ctx))
	send(gone, "/abandoned")
	waiting(3)
	send(Interactive(ctx), "/caller-1")
	waiting(4)
	send(Interactive(ctx), "/caller-2")
	waiting(5)
	cancel()
	waiting(4)
	if got := len(c.order()); got != dynamoDBInFlight {
		t.Fatalf("%d requests reached the emulator while %d slots were busy", got, dynamoDBInFlight)
	}
	// One answer at a time: each frees one slot, and the next in line takes it.
	for i := range 4 {
		c.let <- struct{}{}
		waitFor(dynamoDBInFlight + i + 1)
	}
	close(c.let)
	wg.Wait()
	want := []string{"/caller-1", "/caller-2", "/worker-1", "/worker-2"}
	got := c.order()[dynamoDBInFlight:]
	if len(got) != len(want) {
		t.Fatalf("after the busy ones the emulator got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after the busy ones the emulator got %v, want %v", got, want)
		}
	}
	if tr.free != dynamoDBInFlight {
		t.Errorf("%d free slots after every request, want %d", tr.free, dynamoDBInFlight)
	}
}
