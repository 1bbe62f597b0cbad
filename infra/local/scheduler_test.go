package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/shared/routes"
	"github.com/subsight/subsight/shared/workers"
)

// TestStackRunsTheSweeperSchedule: the template's MetricsSweeperFunction schedule runs
// the registered sweeper at the overridden period, without errors against moto.
func TestStackRunsTheSweeperSchedule(t *testing.T) {
	var found bool
	for _, sc := range testStack.schedules {
		if sc.function == "MetricsSweeperFunction" {
			found = sc.every == 500*time.Millisecond
		}
	}
	if !found {
		t.Fatalf("no MetricsSweeperFunction scheduler at the overridden period: %+v", testStack.schedules)
	}
	start := sweeps.Load()
	waitFor(t, "two sweeps", 5*time.Second, func() bool { return sweeps.Load() >= start+2 })
}

// TestSchedulerTicksAndStops: ticks invoke the handler, a failing or panicking
// invocation does not stop the ticker, and cancelling the context ends run promptly.
func TestSchedulerTicksAndStops(t *testing.T) {
	var calls atomic.Int32
	s := &scheduler{function: "F", event: "E", every: 20 * time.Millisecond, timeout: time.Second,
		handler: func(ctx context.Context) error {
			switch calls.Add(1) {
			case 1:
				return errors.New("boom")
			case 2:
				panic("bang")
			}
			if _, ok := ctx.Deadline(); !ok {
				t.Error("invocation without the function's timeout")
			}
			return nil
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.run(ctx); close(done) }()
	waitFor(t, "four ticks", 5*time.Second, func() bool { return calls.Load() >= 4 })
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("scheduler did not stop")
	}
	n := calls.Load()
	time.Sleep(60 * time.Millisecond)
	if calls.Load() != n {
		t.Error("invoked after stop")
	}
}

func TestBuildSchedulers(t *testing.T) {
	tpl, err := samtemplate.Parse([]byte(`Resources:
  RateFunction:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 7
      Events:
        Tick: {Type: Schedule, Properties: {Schedule: rate(2 hours)}}
        Off: {Type: Schedule, Properties: {Schedule: rate(1 minute), Enabled: false}}
  CronFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Nightly:
          Type: ScheduleV2
          Properties:
            ScheduleExpression: cron(0 3 * * ? *)
`))
	if err != nil {
		t.Fatal(err)
	}
	nop := func(*workers.Deps) func(context.Context) error { return func(context.Context) error { return nil } }
	all := map[string]routes.Scheduled{"RateFunction": nop, "CronFunction": nop}
	tests := []struct {
		name      string
		schedules map[string]routes.Scheduled
		every     time.Duration
		want      map[string]time.Duration // function/event -> period
		wantErr   bool
	}{
		{"template rates; cron not emulated", all, 0, map[string]time.Duration{"RateFunction/Tick": 2 * time.Hour}, false},
		{"override runs cron too", all, time.Second, map[string]time.Duration{"RateFunction/Tick": time.Second, "CronFunction/Nightly": time.Second}, false},
		{"unregistered function", map[string]routes.Scheduled{"RateFunction": nop}, time.Second, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := buildSchedulers(tpl, nil, tc.schedules, tc.every)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if tc.wantErr {
				return
			}
			periods := map[string]time.Duration{}
			for _, s := range got {
				periods[s.function+"/"+s.event] = s.every
				if s.function == "RateFunction" && s.timeout != 7*time.Second {
					t.Errorf("timeout %v", s.timeout)
				}
			}
			if len(periods) != len(tc.want) {
				t.Fatalf("schedulers %v, want %v", periods, tc.want)
			}
			for k, v := range tc.want {
				if periods[k] != v {
					t.Errorf("%s every %v, want %v", k, periods[k], v)
				}
			}
		})
	}
}
