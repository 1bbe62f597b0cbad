//go:build linux

package rie

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/grantcheck"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/routes"
)

// recordingEndpoint starts the proxy through which function id reaches the emulator
// of env, recording its requests, and returns its URL.
func (h *harness) recordingEndpoint(t *testing.T, id string, env *testenv.Env) string {
	t.Helper()
	target, err := url.Parse(env.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.calls.Proxy(id, target, grantcheck.NamesOf(env.Resources)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// checkGrants is least privilege proven by the calls (docs/architecture.md, "Least
// privilege"): every AWS request of every bootstrap is granted by its function's role,
// and, when every case ran and passed, every grant of every role was used by one of its
// functions or carries the registry's Reason.
func (h *harness) checkGrants(t *testing.T, casesPassed bool) {
	for _, err := range h.calls.Errors() {
		t.Errorf("unreadable request: %v", err)
	}
	complete := casesPassed
	for _, fn := range h.functions {
		complete = complete && fn.invokes > 0
	}
	calls := h.calls.Calls()
	for _, p := range grantcheck.Check(routes.Functions, calls, grantcheck.UniverseOf(h.tpl, routes.Functions, calls), complete) {
		t.Error(p)
	}
	if !complete {
		t.Log("some cases did not run or failed: only the calls were checked against the grants, not the grants against the calls")
	}
	roles, statements, pairs := grantcheck.Count(routes.Functions)
	t.Logf("%d execution roles, %d statements, %d actions × resources", roles, statements, pairs)
}
