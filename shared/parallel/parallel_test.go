package parallel

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	tests := []struct {
		name     string
		n, limit int
	}{
		{"none", 0, 4},
		{"one, inline", 1, 4},
		{"fewer than the limit", 3, 8},
		{"more than the limit", 40, 3},
		{"a limit below one runs one at a time", 5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[int]int{}
			var running, peak atomic.Int32
			For(tc.n, tc.limit, func(i int) {
				now := running.Add(1)
				for {
					p := peak.Load()
					if now <= p || peak.CompareAndSwap(p, now) {
						break
					}
				}
				time.Sleep(time.Millisecond)
				running.Add(-1)
				mu.Lock()
				seen[i]++
				mu.Unlock()
			})
			if len(seen) != tc.n {
				t.Errorf("%d distinct calls, want %d", len(seen), tc.n)
			}
			for i, c := range seen {
				if c != 1 || i < 0 || i >= tc.n {
					t.Errorf("f(%d) called %d times", i, c)
				}
			}
			if limit := max(tc.limit, 1); int(peak.Load()) > limit {
				t.Errorf("%d calls at once, limit %d", peak.Load(), limit)
			}
		})
	}
}
