// Package testclock is a clock for tests that moves only when told to: slowness is
// injected by moving it, never waited for.
package testclock

import (
	"sync"
	"time"
)

// Clock reads the time it was set to; safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// At returns a clock reading t.
func At(t time.Time) *Clock { return &Clock{now: t} }

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
