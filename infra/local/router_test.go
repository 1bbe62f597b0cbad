package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
)

// fakeRouter routes to handlers that record the event they get.
func fakeRouter(t *testing.T, authorized bool, specs ...string) (*router, *events.APIGatewayV2HTTPRequest) {
	t.Helper()
	var got events.APIGatewayV2HTTPRequest
	rt := &router{region: "us-east-1"}
	for _, spec := range specs {
		method, path, _ := strings.Cut(spec, " ")
		r := samtemplate.Route{Method: method, Path: path, Function: spec, Authorizer: "Auth"}
		rt.routes = append(rt.routes, &route{
			Route:    r,
			segments: strings.Split(strings.TrimPrefix(path, "/"), "/"),
			handler: func(_ context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
				got = ev
				return events.APIGatewayV2HTTPResponse{StatusCode: 201, Headers: map[string]string{"X-Route": r.Key()},
					MultiValueHeaders: map[string][]string{"X-Multi": {"a", "b"}}, Cookies: []string{"c=1"},
					Body: base64.StdEncoding.EncodeToString([]byte("ok")), IsBase64Encoded: true}, nil
			},
			authorizer: func(_ context.Context, req events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
				return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: authorized,
					Context: map[string]any{"accountId": "acc_1", "seen": strings.Join(req.IdentitySource, "|")}}, nil
			},
			identity: []string{"authorization"},
		})
	}
	return rt, &got
}

func TestRouteMatching(t *testing.T) {
	rt, _ := fakeRouter(t, true, "GET /v1/things", "GET /v1/things/{uuid}", "GET /v1/things/special",
		"ANY /v1/things/{uuid}", "ANY /admin/{proxy+}", "DELETE /v1/things/{uuid}/parts/{part}")
	tests := []struct {
		method, path string
		want         string
		params       map[string]string
	}{
		{"GET", "/v1/things", "GET /v1/things", map[string]string{}},
		{"GET", "/v1/things/special", "GET /v1/things/special", map[string]string{}},
		{"GET", "/v1/things/abc", "GET /v1/things/{uuid}", map[string]string{"uuid": "abc"}},
		{"GET", "/v1/things/a%20b", "GET /v1/things/{uuid}", map[string]string{"uuid": "a b"}},
		{"POST", "/v1/things/abc", "ANY /v1/things/{uuid}", map[string]string{"uuid": "abc"}},
		{"DELETE", "/v1/things/x/parts/y", "DELETE /v1/things/{uuid}/parts/{part}", map[string]string{"uuid": "x", "part": "y"}},
		{"PUT", "/admin/a/b/c", "ANY /admin/{proxy+}", map[string]string{"proxy": "a/b/c"}},
		{"GET", "/admin", "", nil},
		{"GET", "/v1/things/", "", nil},
		{"GET", "/v1/nope", "", nil},
		{"POST", "/v1/things", "", nil},
		{"GET", "/V1/things", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r, params := rt.match(tc.method, tc.path)
			if tc.want == "" {
				if r != nil {
					t.Fatalf("matched %s, want none", r.Key())
				}
				return
			}
			if r == nil || r.Key() != tc.want {
				t.Fatalf("matched %v, want %s", r, tc.want)
			}
			if !reflect.DeepEqual(params, tc.params) {
				t.Errorf("params = %v, want %v", params, tc.params)
			}
		})
	}
}

func TestEventAndResponse(t *testing.T) {
	rt, got := fakeRouter(t, true, "POST /v1/things/{uuid}")
	srv := httptest.NewServer(rt)
	defer srv.Close()

	tests := []struct {
		name, contentType string
		body              []byte
		wantBody          string
		wantB64           bool
	}{
		{"json", "application/json", []byte(`{"a":1}`), `{"a":1}`, false},
		{"text", "text/plain; charset=utf-8", []byte("héllo"), "héllo", false},
		{"binary", "application/octet-stream", []byte{0, 1, 2}, base64.StdEncoding.EncodeToString([]byte{0, 1, 2}), true},
		{"invalid utf-8 json", "application/json", []byte{0xff}, base64.StdEncoding.EncodeToString([]byte{0xff}), true},
		{"empty", "application/json", nil, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", srv.URL+"/v1/things/u%2F1?b=2&a=1&a=3&e=", bytes.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.contentType)
			req.Header.Set("Authorization", "Basic eDo=")
			req.Header.Add("X-Many", "one")
			req.Header.Add("X-Many", "two")
			req.Header.Set("Cookie", "s=1; t=2")
			req.Header.Set("User-Agent", "test-agent")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()

			if resp.StatusCode != 201 || string(b) != "ok" || resp.Header.Get("X-Route") != "POST /v1/things/{uuid}" ||
				!reflect.DeepEqual(resp.Header.Values("X-Multi"), []string{"a", "b"}) || resp.Header.Get("Set-Cookie") != "c=1" ||
				resp.Header.Get("Apigw-Requestid") == "" {
				t.Errorf("response %d %q %v", resp.StatusCode, b, resp.Header)
			}
			ev := *got
			if ev.Version != "2.0" || ev.RouteKey != "POST /v1/things/{uuid}" || ev.RequestContext.RouteKey != ev.RouteKey ||
				ev.RawPath != "/v1/things/u%2F1" || ev.RawQueryString != "b=2&a=1&a=3&e=" {
				t.Errorf("event basics: %+v", ev)
			}
			if want := map[string]string{"uuid": "u/1"}; !reflect.DeepEqual(ev.PathParameters, want) {
				t.Errorf("path parameters = %v", ev.PathParameters)
			}
			if want := map[string]string{"a": "1,3", "b": "2", "e": ""}; !reflect.DeepEqual(ev.QueryStringParameters, want) {
				t.Errorf("query = %v", ev.QueryStringParameters)
			}
			if ev.Headers["x-many"] != "one,two" || ev.Headers["authorization"] != "Basic eDo=" || ev.Headers["content-type"] != tc.contentType ||
				ev.Headers["cookie"] != "" || ev.Headers["x-forwarded-for"] != "127.0.0.1" || ev.Headers["host"] == "" {
				t.Errorf("headers = %v", ev.Headers)
			}
			if !reflect.DeepEqual(ev.Cookies, []string{"s=1", "t=2"}) {
				t.Errorf("cookies = %v", ev.Cookies)
			}
			if ev.Body != tc.wantBody || ev.IsBase64Encoded != tc.wantB64 {
				t.Errorf("body = %q base64=%v", ev.Body, ev.IsBase64Encoded)
			}
			rc := ev.RequestContext
			if rc.RequestID == "" || rc.HTTP.Method != "POST" || rc.HTTP.Path != "/v1/things/u%2F1" || rc.HTTP.SourceIP != "127.0.0.1" ||
				rc.HTTP.UserAgent != "test-agent" || rc.TimeEpoch == 0 || rc.Stage != "$default" {
				t.Errorf("request context = %+v", rc)
			}
			if rc.Authorizer == nil || rc.Authorizer.Lambda["accountId"] != "acc_1" || rc.Authorizer.Lambda["seen"] != "Basic eDo=" {
				t.Errorf("authorizer context = %+v", rc.Authorizer)
			}
		})
	}
}

func TestGatewayErrors(t *testing.T) {
	tests := []struct {
		name       string
		authorized bool
		method     string
		path       string
		body       int
		wantStatus int
		wantBody   string
	}{
		{"unknown route", true, "GET", "/v1/nope", 0, 404, `{"message":"Not Found"}`},
		{"wrong method", true, "GET", "/v1/things/x", 0, 404, `{"message":"Not Found"}`},
		{"denied", false, "POST", "/v1/things/x", 0, 403, `{"message":"Forbidden"}`},
		{"too large", true, "POST", "/v1/things/x", maxBody + 1, 413, `{"message":"Request Entity Too Large"}`},
		{"at the limit", true, "POST", "/v1/things/x", maxBody, 201, "ok"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt, _ := fakeRouter(t, tc.authorized, "POST /v1/things/{uuid}")
			req := httptest.NewRequest(tc.method, tc.path, bytes.NewReader(make([]byte, tc.body)))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			rt.ServeHTTP(rec, req)
			if rec.Code != tc.wantStatus || rec.Body.String() != tc.wantBody {
				t.Fatalf("got %d %s", rec.Code, rec.Body.String())
			}
			if tc.wantStatus != 201 && rec.Header().Get("Content-Type") != "application/json" {
				t.Errorf("content type %q", rec.Header().Get("Content-Type"))
			}
		})
	}
}

// TestAuthorizerAnswersCached: as API Gateway does, the router keeps an authorizer's
// answer per identity source value for the authorizer's TTL; a request without the
// identity source is not cached.
func TestAuthorizerAnswersCached(t *testing.T) {
	calls := 0
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rt := &router{region: "us-east-1", clock: func() time.Time { return now }}
	rt.routes = append(rt.routes, &route{
		Route:    samtemplate.Route{Method: "GET", Path: "/v1/ping", Function: "Ping", Authorizer: "Auth"},
		segments: []string{"v1", "ping"},
		handler: func(_ context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: ev.RequestContext.Authorizer.Lambda["n"].(string)}, nil
		},
		authorizer: func(context.Context, events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
			calls++
			return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: true,
				Context: map[string]any{"n": strconv.Itoa(calls)}}, nil
		},
		identity: []string{"authorization"},
		authTTL:  time.Minute,
	})
	steps := []struct {
		name      string
		header    string
		advance   time.Duration
		wantCalls int
		wantBody  string // the answer the handler got
	}{
		{"first request", "Basic a", 0, 1, "1"},
		{"same key: cached", "Basic a", 30 * time.Second, 1, "1"},
		{"another key", "Basic b", 0, 2, "2"},
		{"first key, past the TTL", "Basic a", 30 * time.Second, 3, "3"},
		{"no identity source: not cached", "", 0, 4, "4"},
		{"no identity source again", "", 0, 5, "5"},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		req := httptest.NewRequest("GET", "/v1/ping", nil)
		if s.header != "" {
			req.Header.Set("Authorization", s.header)
		}
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, req)
		if calls != s.wantCalls || w.Body.String() != s.wantBody {
			t.Fatalf("%s: %d calls, body %q; want %d, %q", s.name, calls, w.Body.String(), s.wantCalls, s.wantBody)
		}
	}
}
