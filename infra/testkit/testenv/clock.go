package testenv

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/sqsworker"
)

// SlowClock makes a worker slow without waiting: every reading of the clock finds
// Step more gone by, so a worker that looks at its deadline before each piece of work
// (sqsworker.MayStart) does only a few pieces per invocation. Hand Now to the worker
// (workers.Deps.DeadlineClock) and run it through Invoke.
type SlowClock struct {
	Step    time.Duration
	Timeout time.Duration // of an invocation (the worker functions': 60 s)

	mu          sync.Mutex
	now         time.Time
	invocations int
}

// Now reads the clock, which moves it on by Step.
func (c *SlowClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.Step)
	return c.now
}

// Invoke runs h as Lambda would, each invocation with a deadline Timeout away on the
// clock, which starts from the real time.
func (c *SlowClock) Invoke(h sqsworker.Handler) sqsworker.Handler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		c.mu.Lock()
		c.now = time.Now()
		c.invocations++
		deadline := c.now.Add(c.Timeout)
		c.mu.Unlock()
		ctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		return h(ctx, ev)
	}
}

// Invocations counts the invocations run through Invoke.
func (c *SlowClock) Invocations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.invocations
}
