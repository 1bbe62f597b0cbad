package openapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strconv"
	"sync"
)

// ViolationStatus is what the proxy answers instead of a response that breaks the
// document: a status no handler uses, with the violations and the original response
// in the body, so that the test that made the call fails and says why. The suites
// disable client retries, so a 5xx here is never retried.
const ViolationStatus = http.StatusBadGateway

// unrouted is the body of the API's answer to a path or method it does not serve; such
// an answer is the only one allowed for a request the document has no operation for.
const unrouted = `{"message":"Not Found"}`

// Proxy forwards every request to the API and validates every response against the
// document.
type Proxy struct {
	spec  *Spec
	proxy *httputil.ReverseProxy
	// Observe records violations but passes the responses through unchanged (for
	// drafting the schema of a new route from the traffic of a suite).
	Observe bool

	mu     sync.Mutex
	report Report
}

// Report counts what went through the proxy.
type Report struct {
	// Validated counts the responses checked against an operation of the document.
	Validated int `json:"validated"`
	// Unrouted counts the 404 Not Found answers to requests the document has no
	// operation for (a suite checking that an unknown route is refused).
	Unrouted int `json:"unrouted"`
	// Violations lists every response that broke the document.
	Violations []Violation `json:"violations"`
	// Operations counts the validated responses per documented route and status.
	Operations map[string]map[string]int `json:"operations"`
}

// Violation is one response that broke the document.
type Violation struct {
	Method string   `json:"method"`
	Path   string   `json:"path"`
	Route  string   `json:"route,omitempty"`
	Status int      `json:"status"`
	Body   string   `json:"body"`
	Errors []string `json:"errors"`
}

// NewProxy returns a proxy to the API at upstream.
func NewProxy(spec *Spec, upstream *url.URL) *Proxy {
	p := &Proxy{spec: spec, report: Report{Operations: map[string]map[string]int{}}}
	p.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Host = r.In.Host
		},
		ModifyResponse: p.check,
	}
	return p
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.proxy.ServeHTTP(w, r) }

// Report returns a copy of the counts so far.
func (p *Proxy) Report() Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.report
	r.Violations = append([]Violation(nil), r.Violations...)
	r.Operations = map[string]map[string]int{}
	for k, v := range p.report.Operations {
		r.Operations[k] = map[string]int{}
		for s, n := range v {
			r.Operations[k][s] = n
		}
	}
	return r
}

// Exercised lists the documented routes that received at least one response.
func (r Report) Exercised() []string {
	out := make([]string, 0, len(r.Operations))
	for k := range r.Operations {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (p *Proxy) check(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	// The validator reads the request's path and method only; the request as the
	// client sent it (path relative to the document's server).
	req := resp.Request.Clone(resp.Request.Context())
	req.URL = &url.URL{Path: resp.Request.URL.Path, RawQuery: resp.Request.URL.RawQuery}
	route := p.spec.Route(req)

	var errs []string
	switch {
	case route == "" && resp.StatusCode == http.StatusNotFound && string(body) == unrouted:
		p.mu.Lock()
		p.report.Unrouted++
		p.mu.Unlock()
		return nil
	case route == "":
		errs = []string{"no operation of the document matches " + req.Method + " " + req.URL.Path}
	default:
		errs = p.spec.CheckResponse(req, resp)
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	if route != "" {
		p.report.Validated++
		if p.report.Operations[route] == nil {
			p.report.Operations[route] = map[string]int{}
		}
		p.report.Operations[route][strconv.Itoa(resp.StatusCode)]++
	}
	if len(errs) == 0 {
		return nil
	}
	v := Violation{Method: req.Method, Path: req.URL.RequestURI(), Route: route, Status: resp.StatusCode,
		Body: string(body), Errors: errs}
	p.report.Violations = append(p.report.Violations, v)
	if p.Observe {
		return nil
	}
	replaced, _ := json.Marshal(map[string]any{"openapi_violation": v})
	resp.StatusCode = ViolationStatus
	resp.Status = strconv.Itoa(ViolationStatus) + " " + http.StatusText(ViolationStatus)
	resp.Header = http.Header{"Content-Type": {"application/json"}}
	resp.Body = io.NopCloser(bytes.NewReader(replaced))
	resp.ContentLength = int64(len(replaced))
	return nil
}
