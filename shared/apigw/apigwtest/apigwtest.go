// Package apigwtest builds API Gateway v2 events for handler tests and calls endpoints
// through apigw.Wrap, exactly as Lambda would: behind the rate gate that the test
// environment installs (UseGate), with the account's limit in the authorizer's context.
package apigwtest

import (
	"cmp"
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/apigw"
)

// Call is one request to an endpoint.
type Call struct {
	Method     string
	Route      string            // template path, e.g. /v1/data_sources/{uuid}
	PathParams map[string]string // values for the route's {params}
	Query      url.Values
	Body       any // marshalled to JSON unless it is a string
	AccountID  string
	// RequestsPerSecond is the account's limit the authorizer passes; 0 is
	// TestRequestsPerSecond.
	RequestsPerSecond int
	// KeyID is the API key's id the authorizer passes ("": none), which makes the rate
	// gate require the account's rate item and the key unrevoked.
	KeyID string
	// Host is the domain the request reached the API at (the host header and the
	// request context's DomainName, as API Gateway sets them; "": neither).
	Host string
}

// TestRequestsPerSecond is the limit of handler tests' accounts unless a call sets
// one: tests call as fast as the emulator answers, and only the tests of the limit
// itself mean to meet it.
const TestRequestsPerSecond = 1_000_000

var gate struct {
	sync.Mutex
	g *apigw.Gate
}

// UseGate installs the rate gate that Do and Raw call endpoints behind (the test
// environment installs one on its table; nil: none). Tests run one after another, so
// the last environment's gate is the one in use.
func UseGate(g *apigw.Gate) {
	gate.Lock()
	defer gate.Unlock()
	gate.g = g
}

func currentGate() *apigw.Gate {
	gate.Lock()
	defer gate.Unlock()
	return gate.g
}

// Event builds the event API Gateway would send for c.
func (c Call) Event() events.APIGatewayV2HTTPRequest {
	path := c.Route
	for k, v := range c.PathParams {
		path = strings.ReplaceAll(path, "{"+k+"}", v)
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version:        "2.0",
		RouteKey:       c.Method + " " + c.Route,
		RawPath:        path,
		RawQueryString: c.Query.Encode(),
		Headers:        map[string]string{"content-type": "application/json"},
		PathParameters: c.PathParams,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RequestID: "test-request",
			HTTP:      events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: c.Method, Path: path},
		},
	}
	if c.Host != "" {
		ev.Headers["host"], ev.RequestContext.DomainName = c.Host, c.Host
	}
	if len(c.Query) > 0 {
		ev.QueryStringParameters = map[string]string{}
		for k, vs := range c.Query {
			ev.QueryStringParameters[k] = strings.Join(vs, ",")
		}
	}
	if c.AccountID != "" {
		ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
			Lambda: map[string]any{apigw.AuthorizerAccountKey: c.AccountID,
				apigw.AuthorizerRateKey: float64(cmp.Or(c.RequestsPerSecond, TestRequestsPerSecond))},
		}
		if c.KeyID != "" {
			ev.RequestContext.Authorizer.Lambda[apigw.AuthorizerKeyIDKey] = c.KeyID
		}
	}
	switch b := c.Body.(type) {
	case nil:
	case string:
		ev.Body = b
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			panic(err)
		}
		ev.Body = string(raw)
	}
	return ev
}

// Do calls the endpoint and returns the status and the decoded JSON body (nil for an
// empty body).
func Do(t testing.TB, ep apigw.Endpoint, c Call) (int, map[string]any) {
	t.Helper()
	resp, err := apigw.Wrap(ep, currentGate())(context.Background(), c.Event())
	if err != nil {
		t.Fatalf("%s %s: handler returned error %v", c.Method, c.Route, err)
	}
	if resp.Body == "" {
		return resp.StatusCode, nil
	}
	if ct := resp.Headers["Content-Type"]; !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s %s: content type %q", c.Method, c.Route, ct)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
		t.Fatalf("%s %s: body %q is not a JSON object: %v", c.Method, c.Route, resp.Body, err)
	}
	return resp.StatusCode, body
}

// Raw calls the endpoint and returns the response as is.
func Raw(t testing.TB, ep apigw.Endpoint, c Call) events.APIGatewayV2HTTPResponse {
	t.Helper()
	resp, err := apigw.Wrap(ep, currentGate())(context.Background(), c.Event())
	if err != nil {
		t.Fatalf("%s %s: handler returned error %v", c.Method, c.Route, err)
	}
	return resp
}
