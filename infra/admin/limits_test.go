package main

import (
	"context"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/model"
)

// TestSetLimit: set-limit stores one limit, keeps the others, recomputes nothing (it
// runs without a jobs queue) and refuses what is not a positive integer.
func TestSetLimit(t *testing.T) {
	te := testenv.New(t)
	e := env{store: te.Deps.Store} // no jobs queue: a limit must not need one
	acc := te.NewAccount(t, "Acme")
	ctx := context.Background()
	key, _ := auth.NewAPIKey()
	if _, err := te.Deps.Store.CreateAPIKey(ctx, acc.ID, auth.Hash(key)); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name, limit, value string
		want               model.Limits // stored
		errHas             string
	}{
		{"requests per second", "requests_per_second", "100", model.Limits{RequestsPerSecond: 100}, ""},
		{"imports in flight", "imports_in_flight", "3", model.Limits{RequestsPerSecond: 100, ImportsInFlight: 3}, ""},
		{"records per minute", "import_records_per_minute", "5000",
			model.Limits{RequestsPerSecond: 100, ImportsInFlight: 3, ImportRecordsPerMinute: 5000}, ""},
		{"zero", "requests_per_second", "0", model.Limits{}, "positive integer"},
		{"negative", "imports_in_flight", "-1", model.Limits{}, "positive integer"},
		{"not a number", "requests_per_second", "fast", model.Limits{}, "positive integer"},
		{"fraction", "requests_per_second", "1.5", model.Limits{}, "positive integer"},
		{"unknown limit", "burst", "10", model.Limits{}, "unknown limit"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			out, err := runCmd(t, e, "set-limit", "-account", acc.ID, "-name", s.limit, "-value", s.value)
			if s.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), s.errHas) {
					t.Fatalf("got %v, want an error about %q", err, s.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := te.Deps.Store.GetAccount(ctx, acc.ID)
			if got.Limits != s.want {
				t.Fatalf("stored %+v, want %+v", got.Limits, s.want)
			}
			printed := out["limits"].(map[string]any)
			if printed[s.limit] != mustFloat(s.value) {
				t.Fatalf("printed %v", out)
			}
			// The authorizer reads the rate with the key.
			owner, err := te.Deps.Store.KeyOwner(ctx, auth.Hash(key))
			if err != nil || owner.AccountID != acc.ID || owner.RequestsPerSecond != s.want.RequestsPerSecond {
				t.Fatalf("authorizer reads %+v %v", owner, err)
			}
		})
	}
	if msgs := te.ReceiveJobs(t); len(msgs) != 0 {
		t.Fatalf("set-limit enqueued %d jobs", len(msgs))
	}
	shown, err := runCmd(t, e, "show-account", "-account", acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if l := shown["limits"].(map[string]any); l["requests_per_second"] != float64(100) {
		t.Fatalf("show-account: %v", shown)
	}
	fresh := te.NewAccount(t, "Fresh")
	shown, _ = runCmd(t, e, "show-account", "-account", fresh.ID)
	if l := shown["limits"].(map[string]any); l["requests_per_second"] != float64(model.DefaultRequestsPerSecond) ||
		l["imports_in_flight"] != float64(model.DefaultImportsInFlight) {
		t.Fatalf("defaults: %v", shown)
	}
}

func mustFloat(s string) float64 {
	var f float64
	for _, c := range s {
		f = f*10 + float64(c-'0')
	}
	return f
}
