package apigw

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// AuthorizerRateKey is the key of the account's requests-per-second limit in the Lambda
// authorizer's context, next to its id: the authorizer reads it with the key, so the
// gate needs no read of its own.
const AuthorizerRateKey = "requestsPerSecond"

// RateLimitMessage is ChartMogul's message for a request past the account's rate.
const RateLimitMessage = "Your request rate has exceeded our rate limit."

// RequestCounter counts an account's requests in windows of one second
// (store.LimitCounters).
type RequestCounter interface {
	CountRequest(ctx context.Context, c store.RequestCount) (int64, error)
}

// Gate limits each account to its requests per second before any handler runs: a
// fixed window of one second per account, counted by one atomic write per request
// (docs/architecture.md, "Limits per account").
type Gate struct {
	counter RequestCounter
	now     func() time.Time
	windows windows
}

// NewGate builds the gate on a counter and a clock.
func NewGate(c RequestCounter, now func() time.Time) *Gate { return &Gate{counter: c, now: now} }

// Throttled is a refusal for a rate or a quota: a 429 in the endpoint's family with a
// Retry-After header. Handlers return it for the quotas of bulk work.
type Throttled struct {
	Err        *apperr.Error
	RetryAfter time.Duration
}

func (t *Throttled) Error() string { return t.Err.Error() }

func (t *Throttled) Unwrap() error { return t.Err }

// TooManyRequests is a 429 with message, to be tried again after retryAfter.
func TooManyRequests(message string, retryAfter time.Duration) *Throttled {
	return &Throttled{Err: &apperr.Error{Status: http.StatusTooManyRequests, Message: message, Code: "rate_limit"},
		RetryAfter: retryAfter}
}

// admit counts the request and returns the refusal when the account is past its rate
// (a *Throttled) or its key no longer works (ChartMogul's 401); nil admits it.
func (g *Gate) admit(ctx context.Context, log *slog.Logger, ev events.APIGatewayV2HTTPRequest, account string) error {
	if g == nil {
		return nil
	}
	now := g.now()
	second := now.Unix()
	retry := time.Unix(second+1, 0).Sub(now)
	tooMany := TooManyRequests(RateLimitMessage, retry)
	limit := RateLimitFromEvent(ev)
	seen, opened := g.windows.open(account, second)
	if seen > int64(limit) {
		// The window is known full: the count only grows within it, so the write
		// could only refuse again.
		return tooMany
	}
	n, err := g.counter.CountRequest(ctx, store.RequestCount{AccountID: account, KeyID: KeyIDFromEvent(ev),
		Second: second, NewWindow: !opened})
	switch {
	case errors.Is(err, store.ErrRevoked):
		log.InfoContext(ctx, "revoked key refused", "account_id", account)
		return apperr.Unauthorized()
	case errors.Is(err, store.ErrThrottled):
		// DynamoDB throttles one item at about a thousand writes a second: the account
		// is far past any limit.
		g.windows.record(account, second, math.MaxInt64)
		return tooMany
	case err != nil:
		// Fail open: the limiter protects capacity, and an outage of its counter must
		// not take every account's API down with it; the handler's own reads and
		// writes meet the same DynamoDB and fail on their own if it is really down.
		log.ErrorContext(ctx, "rate limiter failed; request admitted", "account_id", account, "error", err.Error())
		return nil
	}
	g.windows.record(account, second, n)
	if n > int64(limit) {
		log.InfoContext(ctx, "rate limited", "account_id", account, "count", n)
		return tooMany
	}
	return nil
}

// RateLimitFromEvent reads the account's requests per second from the authorizer's
// context: a JSON number on AWS (float64 once decoded), any integer locally; the default
// when absent or not positive.
func RateLimitFromEvent(ev events.APIGatewayV2HTTPRequest) int {
	if ev.RequestContext.Authorizer == nil {
		return model.DefaultRequestsPerSecond
	}
	n := 0
	switch v := ev.RequestContext.Authorizer.Lambda[AuthorizerRateKey].(type) {
	case float64:
		if v >= 1 && v <= math.MaxInt32 {
			n = int(v)
		}
	case int:
		n = v
	case int64:
		n = int(v)
	case string:
		n, _ = strconv.Atoi(v)
	}
	if n < 1 {
		return model.DefaultRequestsPerSecond
	}
	return n
}

// retryAfter is the Retry-After header's value: whole seconds, at least one.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// refusal renders a client's error (the gate's or a handler's, an *apperr.Error or a
// *Throttled) in the endpoint's family; a *Throttled also gets its Retry-After.
func refusal(err error, f apperr.Family) events.APIGatewayV2HTTPResponse {
	var th *Throttled
	if errors.As(err, &th) {
		resp := render(th.Err, f)
		resp.Headers["Retry-After"] = retryAfter(th.RetryAfter)
		return resp
	}
	e, _ := apperr.As(err)
	return render(e, f)
}
