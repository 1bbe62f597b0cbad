package auth_test

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/auth"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestAuthorizerResolvesOnlyLiveKeys(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := env.NewAccount(t, "Acme")
	other := env.NewAccount(t, "Other")
	key, _ := auth.NewAPIKey()
	keyID, err := env.Deps.Store.CreateAPIKey(ctx, acc.ID, auth.Hash(key))
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _ := auth.NewAPIKey()
	if _, err := env.Deps.Store.CreateAPIKey(ctx, other.ID, auth.Hash(otherKey)); err != nil {
		t.Fatal(err)
	}
	revoked, _ := auth.NewAPIKey()
	revokedID, _ := env.Deps.Store.CreateAPIKey(ctx, acc.ID, auth.Hash(revoked))
	if err := env.Deps.Store.RevokeAPIKey(ctx, acc.ID, revokedID); err != nil {
		t.Fatal(err)
	}
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	authorize := auth.Authorizer(env.Deps.Store)

	tests := []struct {
		name   string
		header string
		want   string
	}{
		{"valid key", basic(key + ":"), acc.ID},
		{"second account's key", basic(otherKey + ":"), other.ID},
		{"revoked key", basic(revoked + ":"), ""},
		{"unknown key", basic("abcdefghijklmnopqrstuvwxyz012345:"), ""},
		{"password given", basic(key + ":pw"), acc.ID},
		{"key as password", basic(key + ":" + key), acc.ID},
		{"unknown key with a password", basic("abcdefghijklmnopqrstuvwxyz012345:" + key), ""},
		{"missing", "", ""},
		{"malformed", "Basic %%%", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := events.APIGatewayV2CustomAuthorizerV2Request{Type: "REQUEST", RouteKey: "GET /v1/ping",
				Headers: map[string]string{}}
			if tt.header != "" {
				req.Headers["authorization"] = tt.header
				req.IdentitySource = []string{tt.header}
			}
			resp, err := authorize(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !resp.IsAuthorized || resp.Context[apigw.AuthorizerAccountKey] != tt.want {
				t.Fatalf("got %+v, want account %q", resp, tt.want)
			}
		})
	}
	// Revoking the live key takes it out at once.
	if err := env.Deps.Store.RevokeAPIKey(ctx, acc.ID, keyID); err != nil {
		t.Fatal(err)
	}
	resp, _ := authorize(ctx, events.APIGatewayV2CustomAuthorizerV2Request{Headers: map[string]string{"authorization": basic(key + ":")}})
	if resp.Context[apigw.AuthorizerAccountKey] != "" {
		t.Fatalf("revoked key still resolves: %+v", resp)
	}
}
