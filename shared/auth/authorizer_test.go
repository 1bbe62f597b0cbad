package auth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/model"
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
	if err := env.Deps.Store.UpdateLimits(ctx, other.ID, model.Limits{RequestsPerSecond: 250}); err != nil {
		t.Fatal(err)
	}
	// A key made after the limit was raised carries it too.
	laterKey, _ := auth.NewAPIKey()
	if _, err := env.Deps.Store.CreateAPIKey(ctx, other.ID, auth.Hash(laterKey)); err != nil {
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
		// rate is the limit the context carries (nil: none, for no account).
		rate any
	}{
		{"valid key", basic(key + ":"), acc.ID, model.DefaultRequestsPerSecond},
		{"second account's key, its own limit", basic(otherKey + ":"), other.ID, 250},
		{"key made after the limit", basic(laterKey + ":"), other.ID, 250},
		{"revoked key", basic(revoked + ":"), "", nil},
		{"unknown key", basic("abcdefghijklmnopqrstuvwxyz012345:"), "", nil},
		{"password given", basic(key + ":pw"), acc.ID, model.DefaultRequestsPerSecond},
		{"key as password", basic(key + ":" + key), acc.ID, model.DefaultRequestsPerSecond},
		{"unknown key with a password", basic("abcdefghijklmnopqrstuvwxyz012345:" + key), "", nil},
		{"missing", "", "", nil},
		{"malformed", "Basic %%%", "", nil},
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
			if !resp.IsAuthorized || resp.Context[apigw.AuthorizerAccountKey] != tt.want || resp.Context[apigw.AuthorizerRateKey] != tt.rate {
				t.Fatalf("got %+v, want account %q and rate %v", resp, tt.want, tt.rate)
			}
			// The context survives API Gateway's JSON: the gate reads the same limit.
			raw, _ := json.Marshal(resp.Context)
			var lambdaCtx map[string]any
			_ = json.Unmarshal(raw, &lambdaCtx)
			ev := events.APIGatewayV2HTTPRequest{RequestContext: events.APIGatewayV2HTTPRequestContext{
				Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{Lambda: lambdaCtx}}}
			if want, _ := tt.rate.(int); want != 0 && apigw.RateLimitFromEvent(ev) != want {
				t.Fatalf("gate reads %d, want %d", apigw.RateLimitFromEvent(ev), want)
			}
		})
	}
	// The key's id travels with the account, for the gate to refuse it once revoked.
	resp, _ := authorize(ctx, events.APIGatewayV2CustomAuthorizerV2Request{Headers: map[string]string{"authorization": basic(key + ":")}})
	raw, _ := json.Marshal(resp.Context)
	var lambdaCtx map[string]any
	_ = json.Unmarshal(raw, &lambdaCtx)
	if got := apigw.KeyIDFromEvent(events.APIGatewayV2HTTPRequest{RequestContext: events.APIGatewayV2HTTPRequestContext{
		Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{Lambda: lambdaCtx}}}); got != keyID {
		t.Fatalf("key id %q in the context, want %q", got, keyID)
	}
	// Revoking the live key takes it out at once.
	if err := env.Deps.Store.RevokeAPIKey(ctx, acc.ID, keyID); err != nil {
		t.Fatal(err)
	}
	resp, _ = authorize(ctx, events.APIGatewayV2CustomAuthorizerV2Request{Headers: map[string]string{"authorization": basic(key + ":")}})
	if resp.Context[apigw.AuthorizerAccountKey] != "" {
		t.Fatalf("revoked key still resolves: %+v", resp)
	}
}
