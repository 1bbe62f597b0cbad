package grantcheck

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Recorder collects the calls of each function. Its zero value is ready.
type Recorder struct {
	mu    sync.Mutex
	calls map[string]map[Call]bool // by function
	errs  []error
}

// Proxy forwards every request to the emulator at target and records its calls under
// function: the function's AWS_ENDPOINT_URL points at it. Requests it cannot read
// are forwarded too and reported by Errors.
func (rec *Recorder) Proxy(function string, target *url.URL, n Names) http.Handler {
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host // the signature covers the host the function sent to
	}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		calls, err := Parse(r, body, n)
		rec.add(function, calls, err)
		proxy.ServeHTTP(w, r)
	})
}

func (rec *Recorder) add(function string, calls []Call, err error) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if err != nil {
		rec.errs = append(rec.errs, fmt.Errorf("%s: %w", function, err))
	}
	if rec.calls == nil {
		rec.calls = map[string]map[Call]bool{}
	}
	if rec.calls[function] == nil {
		rec.calls[function] = map[Call]bool{}
	}
	for _, c := range calls {
		rec.calls[function][c] = true
	}
}

// Calls are the distinct calls recorded per function.
func (rec *Recorder) Calls() map[string][]Call {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := map[string][]Call{}
	for fn, calls := range rec.calls {
		out[fn] = slices.SortedFunc(maps.Keys(calls), func(a, b Call) int {
			return cmp.Or(strings.Compare(a.Action, b.Action), strings.Compare(a.Resource, b.Resource))
		})
	}
	return out
}

// Errors are the requests the recorder could not read.
func (rec *Recorder) Errors() []error {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.errs)
}
