package apigw_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/apperr"
)

// captureLogs sends the default logger's JSON lines to the returned buffer for the test.
func captureLogs(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return &buf
}

// TestWrapLogsAccountButNoPersonalData: the line Wrap writes for a failed call names the
// account, the status and the parameter, and never the e-mail or name the message quotes.
func TestWrapLogsAccountButNoPersonalData(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantLevel string
		want      map[string]any
	}{
		{"client error quoting an e-mail", apperr.NotFound("email", "Can't find any customers with email: %q", "ada@example.com"), "INFO",
			map[string]any{"msg": "client error", "account_id": "acc_1", "status": 404.0, "param": "email",
				"message": `Can't find any customers with email: "…"`}},
		{"client error naming an e-mail bare", apperr.Unprocessable("owner", "%s is not a team member of this account", "ada@example.com"), "INFO",
			map[string]any{"msg": "client error", "account_id": "acc_1", "status": 422.0, "param": "owner",
				"message": "<email> is not a team member of this account"}},
		{"internal error quoting a name", errors.New(`save customer "Ada Lovelace": throttled`), "ERROR",
			map[string]any{"msg": "handler failed", "account_id": "acc_1", "error": `save customer "…": throttled`}},
	}
	// Without a rate gate: an earlier test's gate may point at a table that is gone, and
	// its error line would join the one under test.
	apigwtest.UseGate(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := captureLogs(t)
			ep := apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
				return apigw.Response{}, tt.err
			}}
			apigwtest.Raw(t, ep, apigwtest.Call{Method: "GET", Route: "/v1/x", AccountID: "acc_1"})
			if strings.Contains(logs.String(), "ada@example.com") || strings.Contains(logs.String(), "Lovelace") {
				t.Fatalf("personal data in the log: %s", logs)
			}
			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatalf("one JSON line expected: %v\n%s", err, logs)
			}
			if line["level"] != tt.wantLevel {
				t.Errorf("level %v, want %s", line["level"], tt.wantLevel)
			}
			for k, v := range tt.want {
				if line[k] != v {
					t.Errorf("%s = %#v, want %#v", k, line[k], v)
				}
			}
		})
	}
}
