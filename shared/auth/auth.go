// Package auth handles API keys: making them, hashing them for storage, reading them
// from HTTP Basic credentials, and the HTTP API Lambda authorizer.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"regexp"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// keyShape is what any API key looks like: generated keys are 32 characters of
// base64url (192 bits); operator-chosen local keys are 16 to 128 of the same alphabet.
var keyShape = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)

// NewAPIKey returns a new random key (192 bits of entropy). It is shown once; only its
// hash is stored.
func NewAPIKey() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// ValidLocalKey reports whether s may be used as a key (LOCAL_API_KEY).
func ValidLocalKey(s string) bool { return keyShape.MatchString(s) }

// Hash is the stored form of a key. Keys carry at least 96 bits of entropy, so a
// plain SHA-256 resists guessing; a slow password hash would only add latency to
// every authorizer call.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// ErrNoCredentials is any missing, malformed or unacceptable Authorization header.
var ErrNoCredentials = errors.New("no valid API key provided")

// KeyFromBasic extracts the API key from "Basic base64(key:password)". The password is
// ignored, as ChartMogul ignores it: its clients send an empty one, and data-pipeline
// connectors send the key again.
func KeyFromBasic(header string) (string, error) {
	scheme, encoded, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return "", ErrNoCredentials
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return "", ErrNoCredentials
	}
	user, _, ok := strings.Cut(string(raw), ":")
	if !ok || !keyShape.MatchString(user) {
		return "", ErrNoCredentials
	}
	return user, nil
}

// AuthorizerHandler is the Lambda signature of an HTTP API REQUEST authorizer with
// simple responses.
type AuthorizerHandler func(ctx context.Context, req events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error)

// Authorizer resolves the caller's account, its requests-per-second limit (kept on the
// key's lookup item: one read) and the key's id, which travel in the context to
// apigw.Wrap's rate gate; API Gateway caches the answer per Authorization header for a
// minute, and the gate refuses a key revoked meanwhile. It never
// denies: an unknown key yields an empty account id, and apigw.Wrap answers
// ChartMogul's 401, because API Gateway's own deny is a 403 that ChartMogul clients do
// not expect.
func Authorizer(st store.KeyResolver) AuthorizerHandler {
	return func(ctx context.Context, req events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
		owner, err := resolve(ctx, st, authorizationHeader(req))
		if err != nil && !errors.Is(err, ErrNoCredentials) {
			// A storage failure must not turn into a cached 401; failing the
			// authorizer makes API Gateway answer 500 and the client retry.
			slog.ErrorContext(ctx, "authorizer lookup failed", "error", err.Error())
			return events.APIGatewayV2CustomAuthorizerSimpleResponse{}, err
		}
		out := map[string]any{apigw.AuthorizerAccountKey: owner.AccountID}
		if owner.AccountID != "" {
			out[apigw.AuthorizerKeyIDKey] = owner.KeyID
			out[apigw.AuthorizerRateKey] = model.Limits{RequestsPerSecond: owner.RequestsPerSecond}.Effective().RequestsPerSecond
		}
		return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: true, Context: out}, nil
	}
}

func authorizationHeader(req events.APIGatewayV2CustomAuthorizerV2Request) string {
	for name, v := range req.Headers {
		if strings.EqualFold(name, "authorization") {
			return v
		}
	}
	if len(req.IdentitySource) > 0 {
		return req.IdentitySource[0]
	}
	return ""
}

func resolve(ctx context.Context, st store.KeyResolver, header string) (store.KeyOwner, error) {
	key, err := KeyFromBasic(header)
	if err != nil {
		return store.KeyOwner{}, err
	}
	owner, err := st.KeyOwner(ctx, Hash(key))
	if errors.Is(err, store.ErrNotFound) {
		return store.KeyOwner{}, ErrNoCredentials
	}
	return owner, err
}
