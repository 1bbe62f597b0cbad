package main

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/shared/routes"
	"github.com/subsight/subsight/shared/workers"
)

// scheduler plays EventBridge for one Schedule event: it invokes the function every
// period, the first time one period after start, as a new rate rule does.
type scheduler struct {
	function string
	event    string
	every    time.Duration
	timeout  time.Duration // the function's Timeout
	handler  func(context.Context) error
}

// run invokes the handler on every tick until ctx ends. Invocations never overlap: a
// slow one delays the next tick instead (EventBridge would start a concurrent one, but
// the handlers are idempotent and one process is enough locally).
func (s *scheduler) run(ctx context.Context) {
	log := slog.With("function", s.function, "event", s.event)
	log.Info("scheduler started", "every", s.every.String())
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := s.invoke(ctx); err != nil && ctx.Err() == nil {
				log.Error("scheduled invocation failed", "error", err.Error())
			}
		}
	}
}

func (s *scheduler) invoke(ctx context.Context) (err error) {
	hctx, cancel := lambdaContext(ctx, newRequestID(), s.function, s.timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return s.handler(hctx)
}

// buildSchedulers makes one scheduler per enabled Schedule event. every, when set,
// replaces every period (LOCAL_SCHEDULE_EVERY, for tests and demos); cron and at
// expressions run only with it, as there is no calendar emulation.
func buildSchedulers(tpl *samtemplate.Template, d *workers.Deps, schedules map[string]routes.Scheduled, every time.Duration) ([]*scheduler, error) {
	var out []*scheduler
	for _, m := range tpl.Schedules() {
		if !m.Enabled {
			continue
		}
		build, ok := schedules[m.Function]
		if !ok {
			return nil, fmt.Errorf("schedule %s of %s: the function is not in shared/routes.Schedules", m.Name, m.Function)
		}
		period := m.Every
		if every > 0 {
			period = every
		}
		if period <= 0 {
			slog.Warn("schedule not emulated: only rate() runs locally unless LOCAL_SCHEDULE_EVERY is set",
				"function", m.Function, "event", m.Name, "schedule", m.Expression)
			continue
		}
		out = append(out, &scheduler{function: m.Function, event: m.Name, every: period,
			timeout: time.Duration(tpl.Functions[m.Function].Timeout) * time.Second, handler: build(d)})
	}
	return out, nil
}
