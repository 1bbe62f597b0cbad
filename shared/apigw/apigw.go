// Package apigw adapts API Gateway HTTP API (payload v2) events to the service's
// handlers: it decodes requests, carries the authorizer's account, renders JSON, and
// is the one place that maps errors to HTTP responses.
package apigw

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonbody"
	"github.com/subsight/subsight/shared/logsafe"
)

// AuthorizerAccountKey is the key of the account id in the Lambda authorizer's context.
const AuthorizerAccountKey = "accountId"

// AuthorizerKeyIDKey is the key of the API key's id in the authorizer's context: the
// rate gate refuses it once revoked, though API Gateway still caches the answer.
const AuthorizerKeyIDKey = "keyId"

// Request is one API call, already authenticated.
type Request struct {
	Event     events.APIGatewayV2HTTPRequest
	AccountID string
}

// Handler serves one operation. A returned *apperr.Error becomes a 4xx in the
// endpoint's error family; any other error becomes a generic 500.
type Handler func(ctx context.Context, req *Request) (Response, error)

// Response is what a handler answers.
type Response struct {
	Status int
	Body   any // nil means no body (204)
}

// JSON answers status with v encoded as JSON.
func JSON(status int, v any) (Response, error) { return Response{Status: status, Body: v}, nil }

// NoContent answers 204 without a body.
func NoContent() (Response, error) { return Response{Status: http.StatusNoContent}, nil }

// NotModified answers 304 without a body: an update that changes nothing, where
// ChartMogul answers so.
func NotModified() (Response, error) { return Response{Status: http.StatusNotModified}, nil }

// Endpoint binds a handler to the error family its endpoint speaks.
type Endpoint struct {
	Family  apperr.Family
	Handler Handler
}

// LambdaHandler is the signature lambda.Start accepts for HTTP API events.
type LambdaHandler func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Wrap turns an endpoint into a Lambda handler: it rejects unauthenticated calls with
// ChartMogul's 401, counts the rest against the account's rate (gate; nil limits
// nothing) and refuses those past it with a 429, and those of a revoked key or a
// deleted account with the 401, before the handler runs, recovers
// panics, logs, and renders the result. It never returns a Go error, so that API
// Gateway never answers with its own 500 body.
func Wrap(ep Endpoint, gate *Gate) LambdaHandler {
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (resp events.APIGatewayV2HTTPResponse, _ error) {
		log := slog.With("request_id", ev.RequestContext.RequestID, "route", ev.RouteKey)
		defer answerPanic(ctx, log, ep.Family, &resp)
		account := accountFromEvent(ev)
		if account == "" {
			return render(apperr.Unauthorized(), ep.Family), nil
		}
		if err := gate.admit(ctx, log, ev, account); err != nil {
			return refusal(err, ep.Family), nil
		}
		out, err := ep.Handler(ctx, &Request{Event: ev, AccountID: account})
		if err != nil {
			var th *Throttled
			if errors.As(err, &th) {
				log.InfoContext(ctx, "client throttled", "account_id", account, "message", th.Err.Message)
				return refusal(th, ep.Family), nil
			}
			if e, ok := apperr.As(err); ok {
				log.InfoContext(ctx, "client error", "account_id", account, "status", e.Status, "param", e.Param, "message", logsafe.Text(e.Message))
				return refusal(e, ep.Family), nil
			}
			log.ErrorContext(ctx, "handler failed", "account_id", account, "error", logsafe.Text(err.Error()))
			return render(internalError(), ep.Family), nil
		}
		return encode(out.Status, out.Body), nil
	}
}

// accountFromEvent reads the account id that the authorizer put into the context.
func accountFromEvent(ev events.APIGatewayV2HTTPRequest) string {
	if ev.RequestContext.Authorizer == nil {
		return ""
	}
	v, _ := ev.RequestContext.Authorizer.Lambda[AuthorizerAccountKey].(string)
	return v
}

// KeyIDFromEvent reads the id of the request's API key from the authorizer's context
// ("" when the answer predates it or the caller is a test).
func KeyIDFromEvent(ev events.APIGatewayV2HTTPRequest) string {
	if ev.RequestContext.Authorizer == nil {
		return ""
	}
	v, _ := ev.RequestContext.Authorizer.Lambda[AuthorizerKeyIDKey].(string)
	return v
}

func internalError() *apperr.Error {
	return &apperr.Error{Status: http.StatusInternalServerError, Message: "Internal server error", Family: apperr.FamilyA}
}

func render(e *apperr.Error, f apperr.Family) events.APIGatewayV2HTTPResponse {
	return encode(e.Status, e.Body(f))
}

func encode(status int, body any) events.APIGatewayV2HTTPResponse {
	if body == nil {
		return events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: map[string]string{}}
	}
	b, err := json.Marshal(body)
	if err != nil {
		slog.Error("encode response", "error", err.Error())
		status, b = http.StatusInternalServerError, []byte(`{"code":500,"message":"Internal server error","param":null}`)
	}
	return events.APIGatewayV2HTTPResponse{
		StatusCode: status,
		Headers:    map[string]string{"Content-Type": "application/json; charset=utf-8"},
		Body:       string(b),
	}
}

// Body returns the raw request body, decoding base64 when the gateway encoded it.
func (r *Request) Body() ([]byte, error) {
	if !r.Event.IsBase64Encoded {
		return []byte(r.Event.Body), nil
	}
	b, err := base64.StdEncoding.DecodeString(r.Event.Body)
	if err != nil {
		return nil, apperr.BadRequest("", "The request body is not valid base64")
	}
	return b, nil
}

// Decode reads the JSON body into v with the service's one strict body decoder
// (jsonbody): one JSON object, valid UTF-8, bounded size and depth, exact numbers; an
// empty body is {}. Unknown fields are accepted, as ChartMogul accepts them (clients
// echo read-only fields back).
func (r *Request) Decode(v any) error {
	b, err := r.Body()
	if err != nil {
		return err
	}
	return jsonbody.Decode(b, v)
}

// PathParam returns a path parameter of the route ("{uuid}").
func (r *Request) PathParam(name string) string { return r.Event.PathParameters[name] }

// Query returns a query-string parameter; API Gateway joins repeated values with commas.
func (r *Request) Query(name string) string { return r.Event.QueryStringParameters[name] }

// HasQuery tells whether the parameter was sent at all.
func (r *Request) HasQuery(name string) bool {
	_, ok := r.Event.QueryStringParameters[name]
	return ok
}

// MaxPerPage is ChartMogul's page-size ceiling, also the default.
const MaxPerPage = 200

// PerPage reads per_page: default 200, anything larger is 200, non-numbers and values
// below 1 are a 400.
func (r *Request) PerPage() (int, error) {
	raw := r.Query("per_page")
	if raw == "" {
		return MaxPerPage, nil
	}
	var n int
	if _, err := fmt.Sscan(raw, &n); err != nil || n < 1 || fmt.Sprint(n) != strings.TrimLeft(raw, "+") {
		return 0, apperr.BadRequest("per_page", "Invalid value for parameter \"per_page\": %q", raw)
	}
	return min(n, MaxPerPage), nil
}
