package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/auth"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func runCmd(t *testing.T, e env, name string, args ...string) (map[string]any, error) {
	t.Helper()
	var out bytes.Buffer
	e.stdout = &out
	if err := commands[name](context.Background(), e, args); err != nil {
		return nil, err
	}
	var v map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%s printed %q: %v", name, out.String(), err)
	}
	return v, nil
}

func TestAccountKeyAndMemberCommands(t *testing.T) {
	te := testenv.New(t)
	e := env{store: te.Deps.Store, jobs: te.Deps.Jobs}
	ctx := context.Background()

	created, err := runCmd(t, e, "create-account", "-name", "Acme", "-currency", "eur", "-time-zone", "Europe/Berlin", "-week-start", "sunday")
	if err != nil {
		t.Fatal(err)
	}
	accountID, key := created["account_id"].(string), created["api_key"].(string)
	if !strings.HasPrefix(accountID, "acc_") || !auth.ValidLocalKey(key) || len(created) != 2 {
		t.Fatalf("create-account printed %v", created)
	}
	if got, err := te.Deps.Store.AccountForKeyHash(ctx, auth.Hash(key)); err != nil || got != accountID {
		t.Fatalf("key does not resolve: %v %v", got, err)
	}
	acc, _ := te.Deps.Store.GetAccount(ctx, accountID)
	if acc.Currency != "EUR" || acc.TimeZone != "Europe/Berlin" || acc.WeekStartOn != "sunday" {
		t.Fatalf("stored %+v", acc)
	}

	second, err := runCmd(t, e, "create-key", "-account", accountID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, e, "revoke-key", "-account", accountID, "-api-key", second["api_key"].(string)); err != nil {
		t.Fatal(err)
	}
	if _, err := te.Deps.Store.AccountForKeyHash(ctx, auth.Hash(second["api_key"].(string))); err == nil {
		t.Fatal("revoked key still resolves")
	}
	if _, err := te.Deps.Store.AccountForKeyHash(ctx, auth.Hash(key)); err != nil {
		t.Fatalf("revoking one key revoked another: %v", err)
	}
	keys, _ := runCmd(t, e, "list-keys", "-account", accountID)
	if n := len(keys["keys"].([]any)); n != 2 {
		t.Fatalf("list-keys: %v", keys)
	}

	if _, err := runCmd(t, e, "add-member", "-account", accountID, "-email", "ann@example.com", "-name", "Ann Smith"); err != nil {
		t.Fatal(err)
	}
	if m, err := te.Deps.Store.GetMember(ctx, accountID, "ANN@example.com"); err != nil || m.Name != "Ann Smith" {
		t.Fatalf("member: %+v %v", m, err)
	}
	if _, err := runCmd(t, e, "set-setting", "-account", accountID, "-setting", "refund_handling", "-value", "refund_full_only"); err != nil {
		t.Fatal(err)
	}
	if acc, _ := te.Deps.Store.GetAccount(ctx, accountID); acc.Settings.RefundHandling != "refund_full_only" {
		t.Fatalf("setting not stored: %+v", acc.Settings)
	}
}

func TestCommandsRefuseInvalidValues(t *testing.T) {
	te := testenv.New(t)
	e := env{store: te.Deps.Store, jobs: te.Deps.Jobs}
	acc := te.NewAccount(t, "Acme")
	tests := []struct {
		name   string
		cmd    string
		args   []string
		errHas string
	}{
		{"no name", "create-account", nil, "name"},
		{"bad currency", "create-account", []string{"-name", "A", "-currency", "EURO"}, "currency"},
		{"bad zone", "create-account", []string{"-name", "A", "-time-zone", "Berlin"}, "time zone"},
		{"bad week start", "create-account", []string{"-name", "A", "-week-start", "friday"}, "week start"},
		{"unknown account", "create-key", []string{"-account", "acc_nope"}, "does not exist"},
		{"bad member e-mail", "add-member", []string{"-account", acc.ID, "-email", "nope", "-name", "N"}, "e-mail"},
		{"member without name", "add-member", []string{"-account", acc.ID, "-email", "a@b.co"}, "name"},
		{"unknown setting", "set-setting", []string{"-account", acc.ID, "-setting", "color", "-value", "red"}, "unknown setting"},
		{"bad setting value", "set-setting", []string{"-account", acc.ID, "-setting", "churn_when_zero_mrr", "-value", "maybe"}, "true or false"},
		{"revoke needs one selector", "revoke-key", []string{"-account", acc.ID}, "exactly one"},
		{"revoke unknown key id", "revoke-key", []string{"-account", acc.ID, "-key-id", "nope"}, "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCmd(t, e, tt.cmd, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("got %v, want an error about %q", err, tt.errHas)
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "usage") {
		t.Fatalf("no command: code %d, %q", code, errOut.String())
	}
	if code := run(context.Background(), []string{"explode"}, &out, &errOut); code != 2 {
		t.Fatalf("unknown command: code %d", code)
	}
}
