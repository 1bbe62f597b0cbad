package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/subsight/subsight/infra/devstack/emulator"
	"github.com/subsight/subsight/infra/devstack/provision"
	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/auth"
)

// maxBody is API Gateway's payload limit for HTTP APIs.
const maxBody = 10 << 20

// localAPIID stands in for the HTTP API's id in events and ARNs.
const localAPIID = "local"

// route is one HttpApi event of the template, bound to its handler.
type route struct {
	samtemplate.Route
	segments   []string // path split at "/", without the leading empty one
	handler    apigw.LambdaHandler
	authorizer auth.AuthorizerHandler // nil when the route has none
	identity   []string               // identity source headers, lower case
	authTTL    time.Duration          // how long the authorizer's answers are cached
	timeout    time.Duration          // the function's Timeout
}

// router plays API Gateway (HTTP API, payload format 2.0) for the template's routes.
type router struct {
	routes  []*route
	region  string
	answers authorizerCache
	clock   func() time.Time // nil: time.Now
}

func (rt *router) now() time.Time {
	if rt.clock != nil {
		return rt.clock()
	}
	return time.Now()
}

// authorizerCache keeps authorizer answers per authorizer and identity source values
// for the authorizer's TTL, as API Gateway does: a key's requests within a minute of its
// first cost no authorizer call, and what the application does about a key revoked
// meanwhile (the rate gate refuses it) is exercised locally as it is on AWS.
type authorizerCache struct {
	mu      sync.Mutex
	answers map[string]cachedAnswer
}

type cachedAnswer struct {
	resp    events.APIGatewayV2CustomAuthorizerSimpleResponse
	expires time.Time
}

// maxCachedAnswers bounds the cache against a stream of made-up keys; past it, expired
// answers are dropped first, then all.
const maxCachedAnswers = 10_000

func (c *authorizerCache) get(key string, now time.Time) (events.APIGatewayV2CustomAuthorizerSimpleResponse, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.answers[key]
	if !ok || !now.Before(a.expires) {
		return events.APIGatewayV2CustomAuthorizerSimpleResponse{}, false
	}
	return a.resp, true
}

func (c *authorizerCache) put(key string, resp events.APIGatewayV2CustomAuthorizerSimpleResponse, now, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answers == nil {
		c.answers = map[string]cachedAnswer{}
	}
	if len(c.answers) >= maxCachedAnswers {
		for k, a := range c.answers {
			if !now.Before(a.expires) {
				delete(c.answers, k)
			}
		}
		if len(c.answers) >= maxCachedAnswers {
			clear(c.answers)
		}
	}
	c.answers[key] = cachedAnswer{resp: resp, expires: expires}
}

// match finds the route API Gateway would select: literal segments beat {param},
// which beats {greedy+}; an exact method beats ANY.
func (rt *router) match(method, path string) (*route, map[string]string) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var best *route
	var bestParams map[string]string
	var bestScore []int
	for _, r := range rt.routes {
		if r.Method != method && r.Method != "ANY" {
			continue
		}
		params, score, ok := matchSegments(r.segments, segs)
		if !ok {
			continue
		}
		if r.Method == "ANY" {
			score = append(score, 1)
		} else {
			score = append(score, 0)
		}
		if best == nil || less(score, bestScore) {
			best, bestParams, bestScore = r, params, score
		}
	}
	return best, bestParams
}

func matchSegments(pattern, segs []string) (map[string]string, []int, bool) {
	params := map[string]string{}
	var score []int
	for i, p := range pattern {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "+}") {
			if i >= len(segs) {
				return nil, nil, false
			}
			rest := strings.Join(segs[i:], "/")
			if rest == "" {
				return nil, nil, false
			}
			v, err := url.PathUnescape(rest)
			if err != nil {
				return nil, nil, false
			}
			params[p[1:len(p)-2]] = v
			return params, append(score, 2), true
		}
		if i >= len(segs) {
			return nil, nil, false
		}
		if strings.HasPrefix(p, "{") {
			if segs[i] == "" {
				return nil, nil, false
			}
			v, err := url.PathUnescape(segs[i])
			if err != nil {
				return nil, nil, false
			}
			params[p[1:len(p)-1]] = v
			score = append(score, 1)
			continue
		}
		if p != segs[i] {
			return nil, nil, false
		}
		score = append(score, 0)
	}
	if len(segs) != len(pattern) {
		return nil, nil, false
	}
	return params, score, true
}

func less(a, b []int) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) > len(b) // a longer literal match is more specific
}

// gatewayError answers like API Gateway itself does, with its {"message":...} body.
func gatewayError(w http.ResponseWriter, requestID string, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Apigw-Requestid", requestID)
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"message": message})
	_, _ = w.Write(b)
}

// statusWriter records the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	// A caller waits for the answer: its DynamoDB requests go before the workers'.
	r = r.WithContext(emulator.Interactive(r.Context()))
	requestID := newRequestID()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	routeKey := "-"
	defer func() {
		if p := recover(); p != nil {
			slog.Error("local gateway panic", "request_id", requestID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			gatewayError(sw, requestID, http.StatusInternalServerError, "Internal Server Error")
		}
		slog.Info("request", "request_id", requestID, "method", r.Method, "path", r.URL.EscapedPath(),
			"route", routeKey, "status", sw.status, "ms", time.Since(start).Milliseconds())
	}()

	rawPath := r.URL.EscapedPath()
	rte, params := rt.match(r.Method, rawPath)
	if rte == nil {
		gatewayError(sw, requestID, http.StatusNotFound, "Not Found")
		return
	}
	routeKey = rte.Key()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		gatewayError(sw, requestID, http.StatusBadRequest, "Bad Request")
		return
	}
	if len(body) > maxBody {
		gatewayError(sw, requestID, http.StatusRequestEntityTooLarge, "Request Entity Too Large")
		return
	}
	ev := rt.buildEvent(r, rte, params, body, requestID, start)

	if rte.authorizer != nil {
		resp, err := rt.authorize(r.Context(), rte, ev)
		switch {
		case err != nil:
			slog.Error("authorizer failed", "request_id", requestID, "error", err.Error())
			gatewayError(sw, requestID, http.StatusInternalServerError, "Internal Server Error")
			return
		case !resp.IsAuthorized:
			gatewayError(sw, requestID, http.StatusForbidden, "Forbidden")
			return
		}
		ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{Lambda: resp.Context}
	}

	ctx, cancel := lambdaContext(r.Context(), requestID, rte.Function, rte.timeout)
	defer cancel()
	out, err := rte.handler(ctx, ev)
	if err != nil {
		// A function error is API Gateway's 500, with its own body.
		slog.Error("function error", "request_id", requestID, "function", rte.Function, "error", err.Error())
		gatewayError(sw, requestID, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	writeResponse(sw, requestID, out)
}

// lambdaContext gives a handler what Lambda gives it: a deadline from the function's
// Timeout and the request id (lambdacontext.NewLogger reads it).
func lambdaContext(parent context.Context, requestID, function string, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx := lambdacontext.NewContext(parent, &lambdacontext.LambdaContext{AwsRequestID: requestID,
		InvokedFunctionArn: "arn:aws:lambda:local:" + provision.LocalAccountID + ":function:" + function})
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

func (rt *router) authorize(ctx context.Context, rte *route, ev events.APIGatewayV2HTTPRequest) (resp events.APIGatewayV2CustomAuthorizerSimpleResponse, err error) {
	req := events.APIGatewayV2CustomAuthorizerV2Request{
		Version:  "2.0",
		Type:     "REQUEST",
		RouteArn: fmt.Sprintf("arn:aws:execute-api:%s:%s:%s/$default/%s%s", rt.region, provision.LocalAccountID, localAPIID, ev.RequestContext.HTTP.Method, ev.RawPath),
		RouteKey: ev.RouteKey, RawPath: ev.RawPath, RawQueryString: ev.RawQueryString,
		Cookies: ev.Cookies, Headers: ev.Headers, QueryStringParameters: ev.QueryStringParameters,
		RequestContext: ev.RequestContext, PathParameters: ev.PathParameters,
	}
	// Deviation (docs/local-stack.md): API Gateway answers 401 itself when an
	// identity source is missing; locally the authorizer is called anyway (and its
	// answer not cached).
	for _, h := range rte.identity {
		if v, ok := ev.Headers[h]; ok {
			req.IdentitySource = append(req.IdentitySource, v)
		}
	}
	cacheKey := ""
	if rte.authTTL > 0 && len(req.IdentitySource) == len(rte.identity) && len(rte.identity) > 0 {
		cacheKey = rte.Authorizer + "\x00" + strings.Join(req.IdentitySource, "\x00")
		if resp, ok := rt.answers.get(cacheKey, rt.now()); ok {
			return resp, nil
		}
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("authorizer panic: %v", p)
		}
	}()
	ctx, cancel := lambdaContext(ctx, ev.RequestContext.RequestID, rte.Authorizer, rte.timeout)
	defer cancel()
	start := rt.now()
	resp, err = rte.authorizer(ctx, req)
	if err == nil && cacheKey != "" {
		rt.answers.put(cacheKey, resp, start, start.Add(rte.authTTL))
	}
	return resp, err
}

// buildEvent builds the payload format 2.0 event API Gateway sends to the function.
func (rt *router) buildEvent(r *http.Request, rte *route, params map[string]string, body []byte, requestID string, now time.Time) events.APIGatewayV2HTTPRequest {
	headers := map[string]string{}
	var cookies []string
	names := make([]string, 0, len(r.Header))
	for name := range r.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		lname := strings.ToLower(name)
		if lname == "cookie" {
			// Payload 2.0 moves cookies out of the headers into their own list.
			for _, line := range r.Header[name] {
				for c := range strings.SplitSeq(line, ";") {
					if c = strings.TrimSpace(c); c != "" {
						cookies = append(cookies, c)
					}
				}
			}
			continue
		}
		headers[lname] = strings.Join(r.Header[name], ",")
	}
	headers["host"] = r.Host
	if r.ContentLength > 0 {
		headers["content-length"] = fmt.Sprint(r.ContentLength)
	}
	sourceIP := r.RemoteAddr
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		sourceIP = host
	}
	_, port, _ := net.SplitHostPort(r.Host)
	headers["x-forwarded-for"] = sourceIP
	headers["x-forwarded-proto"] = "http"
	if port != "" {
		headers["x-forwarded-port"] = port
	}
	headers["x-amzn-trace-id"] = "Root=1-" + fmt.Sprintf("%08x", now.Unix()) + "-" + requestID

	var query map[string]string
	if q := r.URL.Query(); len(q) > 0 {
		query = make(map[string]string, len(q))
		for k, vs := range q {
			query[k] = strings.Join(vs, ",")
		}
	}
	if len(params) == 0 {
		params = nil
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version:               "2.0",
		RouteKey:              rte.Key(),
		RawPath:               r.URL.EscapedPath(),
		RawQueryString:        r.URL.RawQuery,
		Cookies:               cookies,
		Headers:               headers,
		QueryStringParameters: query,
		PathParameters:        params,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     rte.Key(),
			AccountID:    provision.LocalAccountID,
			Stage:        "$default",
			RequestID:    requestID,
			APIID:        localAPIID,
			DomainName:   r.Host,
			DomainPrefix: strings.SplitN(r.Host, ".", 2)[0],
			Time:         now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: r.Method, Path: r.URL.EscapedPath(), Protocol: r.Proto,
				SourceIP: sourceIP, UserAgent: r.UserAgent(),
			},
		},
	}
	if len(body) > 0 {
		if isText(r.Header.Get("Content-Type"), body) {
			ev.Body = string(body)
		} else {
			ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
		}
	}
	return ev
}

// isText says whether API Gateway passes the body as text rather than base64.
func isText(contentType string, body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml") ||
		strings.Contains(mt, "javascript") || mt == "application/x-www-form-urlencoded"
}

// writeResponse maps the function's payload 2.0 response to HTTP.
func writeResponse(w http.ResponseWriter, requestID string, out events.APIGatewayV2HTTPResponse) {
	if out.StatusCode < 100 || out.StatusCode > 599 {
		slog.Error("function returned an invalid status", "request_id", requestID, "status", out.StatusCode)
		gatewayError(w, requestID, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	body := []byte(out.Body)
	if out.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(out.Body)
		if err != nil {
			gatewayError(w, requestID, http.StatusInternalServerError, "Internal Server Error")
			return
		}
		body = b
	}
	h := w.Header()
	for k, v := range out.Headers {
		h.Set(k, v)
	}
	for k, vs := range out.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for _, c := range out.Cookies {
		h.Add("Set-Cookie", c)
	}
	h.Set("Apigw-Requestid", requestID)
	if h.Get("Content-Type") == "" && len(body) > 0 {
		// Stop net/http from sniffing a type API Gateway would not add.
		h["Content-Type"] = nil
	}
	w.WriteHeader(out.StatusCode)
	if len(body) > 0 {
		_, _ = w.Write(body)
	}
}

// newRequestID imitates API Gateway's request ids ("JSjLfhC0IAMEbxg=").
func newRequestID() string {
	b := make([]byte, 10)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("no randomness"))
	}
	return base64.StdEncoding.EncodeToString(b)[:14] + "="
}
