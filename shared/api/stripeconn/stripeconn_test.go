package stripeconn_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/api/stripeconn"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/secrets/kmssealer"
	"github.com/subsight/subsight/shared/store"
)

const (
	host          = "api.example.test"
	webhookSecret = "whsec_SECRET0webhook0value"
	apiKey        = "rk_test_SECRET0restricted0key9z"
)

// connection calls one of the three operations on a data source.
func connection(t *testing.T, d *api.Deps, op, accountID, dsUUID string, body any) (int, map[string]any) {
	t.Helper()
	return apitest.Do(t, d, op, apigwtest.Call{PathParams: map[string]string{"data_source_uuid": dsUUID},
		Body: body, AccountID: accountID, Host: host})
}

// TestConnectionLifecycle: connect, read, replace (the key kept, then removed),
// disconnect; the answers never carry a secret, the table holds them sealed to the data
// source.
func TestConnectionLifecycle(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := env.NewAccount(t, "Stripe user")
	ds := env.NewDataSource(t, acc.ID, "Stripe")
	wantURL := "https://" + host + "/stripe/webhooks/" + ds.UUID

	status, first := connection(t, env.API, "PutStripeConnection", acc.ID, ds.UUID, map[string]any{
		"webhook_secret": webhookSecret, "api_key": apiKey, "settings": map[string]any{"deleted_customers": "delete"}})
	if status != http.StatusOK {
		t.Fatalf("PUT: %d %v", status, first)
	}
	want := map[string]any{"data_source_uuid": ds.UUID, "webhook_url": wantURL, "api_key_last4": apiKey[len(apiKey)-4:],
		"settings": defaultSettings(func(s map[string]any) { s["deleted_customers"] = "delete" })}
	for k, v := range want {
		if !equalJSON(first[k], v) {
			t.Errorf("PUT %s = %v, want %v", k, first[k], v)
		}
	}
	stored, err := env.Deps.Store.GetStripeConnection(ctx, ds.UUID)
	if err != nil {
		t.Fatal(err)
	}
	bind := secrets.Binding{AccountID: acc.ID, DataSourceUUID: ds.UUID}
	for sealed, plain := range map[string]string{string(stored.SealedWebhookSecret): webhookSecret, string(stored.SealedAPIKey): apiKey} {
		if strings.Contains(sealed, plain) {
			t.Fatal("a secret is stored in clear")
		}
		if got, err := env.Deps.Secrets.Open(ctx, []byte(sealed), bind); err != nil || string(got) != plain {
			t.Fatalf("a stored secret does not open to what was sent: %v", err)
		}
	}

	steps := []struct {
		name   string
		op     string
		body   any
		status int
		want   map[string]any
	}{
		{"read", "GetStripeConnection", nil, 200, want},
		{"replace the secret, the key kept", "PutStripeConnection", map[string]any{"webhook_secret": "whsec_rotated"}, 200,
			map[string]any{"api_key_last4": want["api_key_last4"], "settings": want["settings"], "connected_at": first["connected_at"]}},
		{"a secret key accepted", "PutStripeConnection", map[string]any{"webhook_secret": "whsec_rotated", "api_key": "sk_test_abcd1234"}, 200,
			map[string]any{"api_key_last4": "1234"}},
		{"the key removed", "PutStripeConnection", map[string]any{"webhook_secret": "whsec_rotated", "api_key": nil,
			"settings": map[string]any{"deleted_customers": "keep_anonymised"}}, 200,
			map[string]any{"api_key_last4": nil, "settings": defaultSettings(nil)}},
		{"the connection read back echoed", "PutStripeConnection", map[string]any{"webhook_secret": "whsec_rotated",
			"data_source_uuid": ds.UUID, "webhook_url": wantURL, "connected_at": first["connected_at"]}, 200, map[string]any{"api_key_last4": nil}},
		{"disconnect", "DeleteStripeConnection", nil, 204, nil},
		{"read when not connected", "GetStripeConnection", nil, 404, map[string]any{"error": "Stripe connection not found"}},
		{"disconnect again", "DeleteStripeConnection", nil, 204, nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			status, body := connection(t, env.API, s.op, acc.ID, ds.UUID, s.body)
			if status != s.status {
				t.Fatalf("%d %v, want %d", status, body, s.status)
			}
			for k, v := range s.want {
				if !equalJSON(body[k], v) {
					t.Errorf("%s = %v, want %v", k, body[k], v)
				}
			}
		})
	}
	if _, err := env.Deps.Store.GetStripeConnection(ctx, ds.UUID); err == nil {
		t.Fatal("the connection is still stored after DELETE")
	}
}

// TestPutRefuses: every mistake is a 4xx in the data sources' family naming the field,
// and no answer quotes what was sent.
func TestPutRefuses(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Stripe user")
	ds := env.NewDataSource(t, acc.ID, "Stripe")
	tests := []struct {
		name   string
		body   any
		status int
		param  string
	}{
		{"no webhook secret", map[string]any{"api_key": apiKey}, 422, "webhook_secret"},
		{"a null webhook secret", map[string]any{"webhook_secret": nil}, 422, "webhook_secret"},
		{"a blank webhook secret", map[string]any{"webhook_secret": "  "}, 422, "webhook_secret"},
		{"not a signing secret", map[string]any{"webhook_secret": "sk_SECRET0wrong0kind"}, 422, "webhook_secret"},
		{"the prefix alone", map[string]any{"webhook_secret": "whsec_"}, 422, "webhook_secret"},
		{"too long", map[string]any{"webhook_secret": "whsec_" + strings.Repeat("x", 250)}, 422, "webhook_secret"},
		{"a publishable key", map[string]any{"webhook_secret": webhookSecret, "api_key": "pk_live_SECRET0publishable"}, 422, "api_key"},
		{"an empty key", map[string]any{"webhook_secret": webhookSecret, "api_key": ""}, 422, "api_key"},
		{"an unknown setting", map[string]any{"webhook_secret": webhookSecret, "settings": map[string]any{"invoice_handling": "x"}}, 422, "settings.invoice_handling"},
		{"a setting's unknown value", map[string]any{"webhook_secret": webhookSecret, "settings": map[string]any{"deleted_customers": "forget"}}, 422, "settings.deleted_customers"},
		{"a setting's value not a string", map[string]any{"webhook_secret": webhookSecret, "settings": map[string]any{"metered_usage": 1}}, 422, "settings.metered_usage"},
		{"null settings", map[string]any{"webhook_secret": webhookSecret, "settings": nil}, 422, "settings"},
		{"a secret of the wrong type", map[string]any{"webhook_secret": 42}, 400, ""},
		{"not JSON", "whsec_SECRET0not0json", 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := apitest.Raw(t, env.API, "PutStripeConnection", apigwtest.Call{
				PathParams: map[string]string{"data_source_uuid": ds.UUID}, Body: tt.body, AccountID: acc.ID})
			if resp.StatusCode != tt.status {
				t.Fatalf("%d %s, want %d", resp.StatusCode, resp.Body, tt.status)
			}
			if strings.Contains(resp.Body, "SECRET0") {
				t.Fatalf("the answer quotes the secret: %s", resp.Body)
			}
			if tt.param != "" && !strings.Contains(resp.Body, `"param":"`+tt.param+`"`) {
				t.Fatalf("the answer does not name %s: %s", tt.param, resp.Body)
			}
			if !strings.Contains(resp.Body, `"error_details"`) {
				t.Fatalf("not the data sources' error family: %s", resp.Body)
			}
		})
	}
	if status, body := connection(t, env.API, "GetStripeConnection", acc.ID, ds.UUID, nil); status != http.StatusNotFound {
		t.Fatalf("a refused PUT connected the source: %d %v", status, body)
	}
}

// TestOtherDataSources: an unknown data source, another account's and one being
// deleted answer as GET data source does; account B can neither read, replace nor
// delete account A's connection.
func TestOtherDataSources(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	a, b := env.NewAccount(t, "A"), env.NewAccount(t, "B")
	dsA, deleting := env.NewDataSource(t, a.ID, "Stripe"), env.NewDataSource(t, a.ID, "Going")
	put := map[string]any{"webhook_secret": webhookSecret, "api_key": apiKey}
	for _, ds := range []string{dsA.UUID, deleting.UUID} {
		if status, body := connection(t, env.API, "PutStripeConnection", a.ID, ds, put); status != http.StatusOK {
			t.Fatalf("PUT: %d %v", status, body)
		}
	}
	if err := env.Deps.Store.MarkDataSourceDeleting(ctx, a.ID, deleting.UUID); err != nil {
		t.Fatal(err)
	}
	before, err := env.Deps.Store.GetStripeConnection(ctx, dsA.UUID)
	if err != nil {
		t.Fatal(err)
	}
	notFound := map[string]any{"error": "Data source not found"}
	tests := []struct {
		name, op, account, ds string
		status                int
		want                  map[string]any
	}{
		{"B reads A's", "GetStripeConnection", b.ID, dsA.UUID, 404, notFound},
		{"B replaces A's", "PutStripeConnection", b.ID, dsA.UUID, 404, notFound},
		{"B deletes A's", "DeleteStripeConnection", b.ID, dsA.UUID, 404, notFound},
		{"an unknown data source", "GetStripeConnection", a.ID, "ds_00000000-0000-0000-0000-000000000000", 404, notFound},
		{"a malformed uuid", "PutStripeConnection", a.ID, "nonsense", 404, notFound},
		{"read one being deleted", "GetStripeConnection", a.ID, deleting.UUID, 404, notFound},
		{"connect one being deleted", "PutStripeConnection", a.ID, deleting.UUID, 404, notFound},
		{"disconnect one being deleted", "DeleteStripeConnection", a.ID, deleting.UUID, 204, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := connection(t, env.API, tt.op, tt.account, tt.ds, put)
			if status != tt.status {
				t.Fatalf("%d %v, want %d", status, body, tt.status)
			}
			for k, v := range tt.want {
				if body[k] != v {
					t.Errorf("%s = %v, want %v", k, body[k], v)
				}
			}
		})
	}
	after, err := env.Deps.Store.GetStripeConnection(ctx, dsA.UUID)
	if err != nil || !bytes.Equal(after.SealedWebhookSecret, before.SealedWebhookSecret) || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("A's connection changed: %v", err)
	}
}

// TestDeletedDataSourceDisconnects: DELETE of the data source removes its connection at
// once, before the purge runs, so no delivery is taken for it any more.
func TestDeletedDataSourceDisconnects(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Stripe user")
	ds := env.NewDataSource(t, acc.ID, "Stripe")
	if status, body := connection(t, env.API, "PutStripeConnection", acc.ID, ds.UUID, map[string]any{"webhook_secret": webhookSecret}); status != http.StatusOK {
		t.Fatalf("PUT: %d %v", status, body)
	}
	if status, body := apitest.Do(t, env.API, "DeleteDataSource", apigwtest.Call{PathParams: map[string]string{"uuid": ds.UUID},
		AccountID: acc.ID}); status != http.StatusNoContent {
		t.Fatalf("DELETE data source: %d %v", status, body)
	}
	if _, err := env.Deps.Store.GetStripeConnection(context.Background(), ds.UUID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the deleted source's connection: %v, want ErrNotFound", err)
	}
}

// TestSecretsNeverLogged: whatever happens to a PUT (accepted, refused, failing at
// KMS), the function's log lines never hold the secrets.
func TestSecretsNeverLogged(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Stripe user")
	ds := env.NewDataSource(t, acc.ID, "Stripe")
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	// A sealer whose key does not exist: KMS refuses, the handler fails with a 500.
	broken := &api.Deps{Store: env.API.Store, Secrets: kmssealer.New(env.AWS, "alias/none"), Now: env.API.Now}
	calls := []struct {
		d      *api.Deps
		body   any
		status int
	}{
		{env.API, map[string]any{"webhook_secret": webhookSecret, "api_key": apiKey}, 200},
		{env.API, map[string]any{"webhook_secret": webhookSecret, "api_key": "pk_" + apiKey}, 422},
		{env.API, map[string]any{"webhook_secret": "x" + webhookSecret, "api_key": apiKey}, 422},
		{env.API, `{"webhook_secret":"` + webhookSecret + `","api_key":`, 400},
		{broken, map[string]any{"webhook_secret": webhookSecret, "api_key": apiKey}, 500},
	}
	for i, c := range calls {
		if status, body := connection(t, c.d, "PutStripeConnection", acc.ID, ds.UUID, c.body); status != c.status {
			t.Fatalf("call %d: %d %v, want %d", i, status, body, c.status)
		}
	}
	if logs.Len() == 0 {
		t.Fatal("nothing was logged: the test captures nothing")
	}
	for _, secret := range []string{"SECRET0", webhookSecret[6:], apiKey[3:]} {
		if strings.Contains(logs.String(), secret) {
			t.Fatalf("a secret is in the logs:\n%s", logs.String())
		}
	}
}

// TestWebhookURL: the URL Stripe must call is under the base URL the request reached
// the API at.
func TestWebhookURL(t *testing.T) {
	tests := []struct {
		name    string
		domain  string
		headers map[string]string
		want    string
	}{
		{"API Gateway", "abc123.execute-api.eu-west-1.amazonaws.com", nil, "https://abc123.execute-api.eu-west-1.amazonaws.com/stripe/webhooks/ds_1"},
		{"a custom domain", "api.example.com", map[string]string{"x-forwarded-proto": "https"}, "https://api.example.com/stripe/webhooks/ds_1"},
		{"the local stack", "127.0.0.1:3000", nil, "http://127.0.0.1:3000/stripe/webhooks/ds_1"},
		{"localhost", "localhost:3000", nil, "http://localhost:3000/stripe/webhooks/ds_1"},
		{"the host header alone", "", map[string]string{"host": "api.example.com"}, "https://api.example.com/stripe/webhooks/ds_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &apigw.Request{}
			r.Event.RequestContext.DomainName, r.Event.Headers = tt.domain, tt.headers
			if got := stripeconn.WebhookURL(r, "ds_1"); got != tt.want {
				t.Fatalf("WebhookURL = %s, want %s", got, tt.want)
			}
		})
	}
}

// equalJSON compares a decoded answer's value with a wanted one as JSON.
func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
