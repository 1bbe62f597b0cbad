package openapi_test

import (
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/devstack/openapi"
	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/shared/routes"
)

// load reads the document and the registry's functions by route.
func load(t *testing.T) (*openapi.Spec, map[string]routes.Function) {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := openapi.Load(filepath.Join(root, openapi.DocumentPath))
	if err != nil {
		t.Fatal(err)
	}
	byRoute := map[string]routes.Function{}
	for _, f := range routes.Functions {
		for _, r := range f.Routes {
			byRoute[r.Key()] = f
		}
	}
	return spec, byRoute
}

// TestDocumentCoversTheRegistry: every route of the registry (shared/routes, from which
// template.yaml's are generated) is documented, and the document has no route the
// registry lacks.
func TestDocumentCoversTheRegistry(t *testing.T) {
	spec, registry := load(t)
	registered := slices.Sorted(maps.Keys(registry))
	documented := spec.Routes()
	for _, r := range registered {
		if !slices.Contains(documented, r) {
			t.Errorf("%s is a route of shared/routes but not documented in %s", r, openapi.DocumentPath)
		}
	}
	for _, r := range documented {
		if !slices.Contains(registered, r) {
			t.Errorf("%s is documented in %s but is no route of shared/routes", r, openapi.DocumentPath)
		}
	}
	t.Logf("%d routes in shared/routes, %d documented operations", len(registered), len(documented))
}

// TestDocumentIsValid: the document is OpenAPI 3.1 and valid against the
// specification's schema, and every operation names its responses.
func TestDocumentIsValid(t *testing.T) {
	spec, _ := load(t)
	if !strings.HasPrefix(spec.Version(), "3.1") {
		t.Fatalf("openapi %q, want 3.1", spec.Version())
	}
	for _, e := range spec.CheckDocument() {
		t.Error(e)
	}
	for route, op := range spec.Operations() {
		if op.Responses == nil {
			t.Errorf("%s documents no response", route)
		}
	}
}

// apiKeyScheme is the document's security scheme of the API key (HTTP Basic).
const apiKeyScheme = "apiKey"

// TestDocumentDeclaresWhatTheRegistryDoes: every documented operation declares what
// the registry declares of its function, field by field: the operationId is the
// function's (Function.OperationID; the dashboard's routes start theirs with it), the
// path parameters are the route's, the one tag is the family's (Function.Tag), and
// the security follows the kind: behind the authorizer, the API key's scheme and a
// 401; public, security: [] and no 401.
func TestDocumentDeclaresWhatTheRegistryDoes(t *testing.T) {
	spec, registry := load(t)
	for route, got := range spec.Declarations() {
		f, ok := registry[route]
		if !ok {
			continue // TestDocumentCoversTheRegistry names it
		}
		r := f.Routes[slices.IndexFunc(f.Routes, func(r routes.Route) bool { return r.Key() == route })]
		want := openapi.Declaration{OperationID: f.OperationID(), Tags: []string{f.Tag()}, PathParameters: r.Parameters(),
			Security: []string{apiKeyScheme}, Documents401: true}
		if f.Open() {
			want.Security, want.Documents401 = nil, false
		}
		if len(f.Routes) > 1 && strings.HasPrefix(got.OperationID, want.OperationID) && got.OperationID != want.OperationID {
			want.OperationID = got.OperationID
		}
		for _, field := range []struct {
			name      string
			got, want any
		}{
			{"operationId", got.OperationID, want.OperationID},
			{"tags", got.Tags, want.Tags},
			{"path parameters", got.PathParameters, want.PathParameters},
			{"security", got.Security, want.Security},
			{"a 401 response", got.Documents401, want.Documents401},
		} {
			if !reflect.DeepEqual(field.got, field.want) {
				t.Errorf("%s (%s): %s %v, the registry says %v", route, f.Name, field.name, field.got, field.want)
			}
		}
	}
}

// TestProxyValidatesResponses: a conforming answer passes through unchanged; a wrong
// shape, an undocumented status and an undocumented route become the proxy's 502
// naming the violation; the API's unrouted 404 passes.
func TestProxyValidatesResponses(t *testing.T) {
	spec, _ := load(t)
	answers := map[string]struct {
		status int
		body   string
	}{
		"/v1/ping":          {200, `{"data":"pong!"}`},
		"/v1/account":       {200, `{"id":"acc_1","name":"A","currency":"USD","time_zone":"UTC","week_start_on":"monday","extra":1}`},
		"/v1/data_sources":  {500, `{"error":"boom"}`},
		"/v1/nope":          {404, `{"message":"Not Found"}`},
		"/v1/nope/answered": {200, `{}`},
		"/v1/customer_notes/note_1": {200, `{"uuid":"note_1","customer_uuid":"cus_00000000-0000-4000-8000-000000000000",` +
			`"type":"note","text":"","call_duration":0,"author":null,"created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-01-01T00:00:00.000Z"}`},
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[r.URL.Path]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	proxy := openapi.NewProxy(spec, target)
	front := httptest.NewServer(proxy)
	defer front.Close()

	tests := []struct {
		path       string
		wantStatus int
		wantInBody string
	}{
		{"/v1/ping", 200, `"pong!"`},
		{"/v1/account", openapi.ViolationStatus, "extra"},
		{"/v1/data_sources", openapi.ViolationStatus, "500"},
		{"/v1/nope", 404, "Not Found"},
		{"/v1/nope/answered", openapi.ViolationStatus, "no operation of the document"},
		{"/v1/customer_notes/note_1", openapi.ViolationStatus, "author"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, err := http.Get(front.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(string(b), tt.wantInBody) {
				t.Fatalf("GET %s = %d %s, want %d with %q", tt.path, resp.StatusCode, b, tt.wantStatus, tt.wantInBody)
			}
		})
	}
	r := proxy.Report()
	if r.Validated != 4 || r.Unrouted != 1 || len(r.Violations) != 4 {
		t.Fatalf("report: %d validated, %d unrouted, %d violations: %+v", r.Validated, r.Unrouted, len(r.Violations), r.Violations)
	}
}
