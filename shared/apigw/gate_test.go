package apigw_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const rateLimited = `{"code":429,"message":"Your request rate has exceeded our rate limit.","param":null}`

// memCounter counts windows in memory; err, when set, is what every count fails with.
type memCounter struct {
	mu   sync.Mutex
	n    map[string]int64
	err  error
	keys []keys.Key
}

func (c *memCounter) CountRequest(_ context.Context, r store.RequestCount) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	k := keys.AccountRate(r.AccountID)
	c.keys = append(c.keys, k)
	window := k.PK + "#" + strconv.FormatInt(r.Second, 10)
	c.n[window]++
	return c.n[window], nil
}

// event is a request whose authorizer passed account and, unless nil, rate.
func event(account string, rate any) events.APIGatewayV2HTTPRequest {
	ev := apigwtest.Call{Method: "GET", Route: "/v1/ping"}.Event()
	lambda := map[string]any{apigw.AuthorizerAccountKey: account}
	if rate != nil {
		lambda[apigw.AuthorizerRateKey] = rate
	}
	ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{Lambda: lambda}
	return ev
}

func TestGateLimitsEachAccountPerSecond(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 250_000_000, time.UTC)
	type step struct {
		account string
		rate    any           // the authorizer's limit; nil: absent
		at      time.Duration // after start
		want    int
	}
	tests := []struct {
		name   string
		family apperr.Family
		err    error // the counter's
		steps  []step
		// wantBody is the 429's body.
		wantBody string
	}{
		{name: "limit from the authorizer's context (a JSON number)", family: apperr.FamilyA, wantBody: rateLimited, steps: []step{
			{"acc_a", float64(2), 0, 200}, {"acc_a", float64(2), 0, 200}, {"acc_a", float64(2), 0, 429}, {"acc_a", float64(2), 500 * time.Millisecond, 429},
		}},
		{name: "the next window admits again", family: apperr.FamilyA, wantBody: rateLimited, steps: []step{
			{"acc_a", 1, 0, 200}, {"acc_a", 1, 0, 429}, {"acc_a", 1, 750 * time.Millisecond, 200}, {"acc_a", 1, 800 * time.Millisecond, 429},
		}},
		{name: "accounts are counted apart", family: apperr.FamilyA, wantBody: rateLimited, steps: []step{
			{"acc_a", 1, 0, 200}, {"acc_a", 1, 0, 429}, {"acc_b", 1, 0, 200},
		}},
		{name: "refusals count too", family: apperr.FamilyA, wantBody: rateLimited, steps: []step{
			{"acc_a", 2, 0, 200}, {"acc_a", 2, 0, 200}, {"acc_a", 2, 0, 429}, {"acc_a", 3, 0, 429},
		}},
		{name: "family B endpoints answer in family B", family: apperr.FamilyB, steps: []step{
			{"acc_a", "1", 0, 200}, {"acc_a", "1", 0, 429},
		}, wantBody: `{"error":"Your request rate has exceeded our rate limit.","error_details":[{"param":"base","code":"rate_limit","message":"Your request rate has exceeded our rate limit."}]}`},
		{name: "a throttled counter is far past the limit", family: apperr.FamilyA, wantBody: rateLimited,
			err: errors.Join(store.ErrThrottled, errors.New("ProvisionedThroughputExceededException")), steps: []step{{"acc_a", 100, 0, 429}}},
		{name: "any other failure of the counter admits", family: apperr.FamilyA, err: errors.New("connection reset"),
			steps: []step{{"acc_a", 1, 0, 200}, {"acc_a", 1, 0, 200}}},
		{name: "no valid key: 401 without counting", family: apperr.FamilyA, steps: []step{{"", 1, 0, 401}, {"", 1, 0, 401}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counter := &memCounter{n: map[string]int64{}, err: tt.err}
			var now time.Time
			gate := apigw.NewGate(counter, func() time.Time { return now })
			for i, s := range tt.steps {
				now = start.Add(s.at)
				called := false
				h := apigw.Wrap(apigw.Endpoint{Family: tt.family, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
					called = true
					return apigw.JSON(200, map[string]string{"data": "pong!"})
				}}, gate)
				resp, _ := h(context.Background(), event(s.account, s.rate))
				if resp.StatusCode != s.want {
					t.Fatalf("step %d: %d %s, want %d", i, resp.StatusCode, resp.Body, s.want)
				}
				if called != (s.want == 200) {
					t.Fatalf("step %d: handler called %v with status %d", i, called, s.want)
				}
				if s.want == http.StatusTooManyRequests {
					if resp.Body != tt.wantBody || resp.Headers["Retry-After"] != "1" ||
						!strings.HasPrefix(resp.Headers["Content-Type"], "application/json") {
						t.Fatalf("step %d: %s %v", i, resp.Body, resp.Headers)
					}
				}
			}
			for _, k := range counter.keys {
				if !keys.OwnedBy(k.PK, "acc_a") && !keys.OwnedBy(k.PK, "acc_b") {
					t.Fatalf("counter %v outside the account's partitions", k)
				}
			}
		})
	}
}

func TestGateDefaultLimit(t *testing.T) {
	tests := []struct {
		name string
		rate any
	}{
		{"absent", nil}, {"zero", float64(0)}, {"negative", float64(-5)}, {"not a number", "many"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			gate := apigw.NewGate(&memCounter{n: map[string]int64{}}, func() time.Time { return now })
			h := apigw.Wrap(apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
				return apigw.NoContent()
			}}, gate)
			for i := 1; i <= model.DefaultRequestsPerSecond+1; i++ {
				resp, _ := h(context.Background(), event("acc_a", tt.rate))
				want := http.StatusNoContent
				if i > model.DefaultRequestsPerSecond {
					want = http.StatusTooManyRequests
				}
				if resp.StatusCode != want {
					t.Fatalf("request %d: %d, want %d", i, resp.StatusCode, want)
				}
			}
		})
	}
}

func TestHandlerQuotaIsA429WithRetryAfter(t *testing.T) {
	h := apigw.Wrap(apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
		return apigw.Response{}, apigw.TooManyRequests("Too many imports in flight", 2500*time.Millisecond)
	}}, nil)
	resp, _ := h(context.Background(), event("acc_a", nil))
	if resp.StatusCode != 429 || resp.Headers["Retry-After"] != "3" ||
		resp.Body != `{"code":429,"message":"Too many imports in flight","param":null}` {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Headers, resp.Body)
	}
}

// TestGateOnDynamoDB runs the gate on the table: one counter per account, under the
// account's partitions, holding the count of the current second.
func TestGateOnDynamoDB(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Noisy")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := apigw.Wrap(apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
		return apigw.NoContent()
	}}, apigw.NewGate(env.Deps.Store, func() time.Time { return now }))
	// A second process, whose first request of each second meets a counter the first
	// process already moved on.
	other := apigw.Wrap(apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
		return apigw.NoContent()
	}}, apigw.NewGate(env.Deps.Store, func() time.Time { return now }))
	statuses := func(h apigw.LambdaHandler, n int) []int {
		var out []int
		for range n {
			resp, _ := h(context.Background(), event(acc.ID, float64(3)))
			out = append(out, resp.StatusCode)
		}
		return out
	}
	if got := append(statuses(h, 2), statuses(other, 3)...); !equal(got, []int{204, 204, 204, 429, 429}) {
		t.Fatalf("first second: %v", got)
	}
	now = now.Add(time.Second)
	if got := append(statuses(other, 1), statuses(h, 3)...); !equal(got, []int{204, 204, 204, 429}) {
		t.Fatalf("next second: %v", got)
	}
	out, err := env.Deps.Clients.DynamoDB.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(env.TableName)})
	if err != nil {
		t.Fatal(err)
	}
	var counters []map[string]any
	for _, it := range out.Items {
		var m map[string]any
		_ = attributevalue.UnmarshalMap(it, &m)
		if m[keys.EntityType] == keys.TypeAccountRate {
			counters = append(counters, m)
		}
	}
	if len(counters) != 1 {
		t.Fatalf("%d counters: %v", len(counters), counters)
	}
	if c := counters[0]; c[keys.PK] != keys.AccountRate(acc.ID).PK || c["n"] != float64(4) || c["sec"] != float64(now.Unix()) {
		t.Fatalf("counter %v", c)
	}
}

// TestGateRefusesRevokedKeysAtOnce: API Gateway keeps the authorizer's answer for a
// minute, so a revoked key's requests still arrive naming the account; the gate's one
// write refuses them with the 401 from the moment the key is revoked, and every request
// once the account's counter is gone (the account deleted).
func TestGateRefusesRevokedKeysAtOnce(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := env.NewAccount(t, "Acme")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := apigw.Wrap(apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
		return apigw.NoContent()
	}}, apigw.NewGate(env.Deps.Store, func() time.Time { return now }))
	var keyIDs []string
	for range 2 {
		key, _ := auth.NewAPIKey()
		id, err := env.Deps.Store.CreateAPIKey(ctx, acc.ID, auth.Hash(key))
		if err != nil {
			t.Fatal(err)
		}
		keyIDs = append(keyIDs, id)
	}
	// cached is the event of a request whose authorizer answer API Gateway cached.
	cached := func(keyID string) events.APIGatewayV2HTTPRequest {
		ev := event(acc.ID, float64(1000))
		ev.RequestContext.Authorizer.Lambda[apigw.AuthorizerKeyIDKey] = keyID
		return ev
	}
	steps := []struct {
		name   string
		before func() error
		keyID  string
		want   int
	}{
		{"live key", nil, keyIDs[0], 204},
		{"revoked key, the same second", func() error { return env.Deps.Store.RevokeAPIKey(ctx, acc.ID, keyIDs[0]) }, keyIDs[0], 401},
		{"revoked key, a later second", func() error { now = now.Add(3 * time.Second); return nil }, keyIDs[0], 401},
		{"the account's other key", nil, keyIDs[1], 204},
		{"the account deleted", func() error {
			_, err := env.Deps.Clients.DynamoDB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(env.TableName),
				Key: map[string]types.AttributeValue{keys.PK: &types.AttributeValueMemberS{Value: keys.AccountRate(acc.ID).PK},
					keys.SK: &types.AttributeValueMemberS{Value: keys.AccountRate(acc.ID).SK}}})
			return err
		}, keyIDs[1], 401},
	}
	for _, s := range steps {
		if s.before != nil {
			if err := s.before(); err != nil {
				t.Fatal(err)
			}
		}
		resp, _ := h(ctx, cached(s.keyID))
		if resp.StatusCode != s.want {
			t.Fatalf("%s: %d %s, want %d", s.name, resp.StatusCode, resp.Body, s.want)
		}
		if s.want == 401 && resp.Body != `{"code":401,"message":"No valid API key provided","param":null}` {
			t.Fatalf("%s: body %s", s.name, resp.Body)
		}
	}
}

func equal(a, b []int) bool { return slices.Equal(a, b) }
