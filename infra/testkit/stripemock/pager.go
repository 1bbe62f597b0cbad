package stripemock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Pager stands in front of stripe-mock: every request goes to stripe-mock as it came
// (which refuses a malformed one), and a list it answers is made a list of Items
// objects (the fixture's, each with an id of its own: "<fixture id>_<n>", and in a list
// filtered by customer "<fixture id>_<customer>_<n>", the object that customer's) served
// in pages of the request's limit, with has_more and starting_after as Stripe's. Patch may
// change each object served (give an invoice a status, a charge a refund).
type Pager struct {
	// Items is how many objects every list holds, unless Sizes names its path.
	Items int
	Sizes map[string]int
	// Patch, when set, edits each object of a list served at path.
	Patch func(path string, obj map[string]any)

	srv      *httptest.Server
	upstream string

	mu       sync.Mutex
	requests map[string]int // per path
	refused  []string       // requests stripe-mock refused, with its message
}

// NewPager starts a Pager in front of the stripe-mock at upstream; it is closed at the
// end of the test.
func NewPager(t testing.TB, upstream string, items int, patch func(string, map[string]any)) *Pager {
	p := &Pager{Items: items, Patch: patch, upstream: upstream, requests: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

// URL is the pager's base URL, the API base to give a Stripe client.
func (p *Pager) URL() string { return p.srv.URL }

// Requests is how many requests came for each path.
func (p *Pager) Requests() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.requests)
}

// Total is how many requests came.
func (p *Pager) Total() int {
	n := 0
	for _, c := range p.Requests() {
		n += c
	}
	return n
}

// Refused are the requests stripe-mock refused (a 4xx), each with its answer.
func (p *Pager) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

func (p *Pager) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests[r.URL.Path]++
	p.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 400 {
		p.mu.Lock()
		p.refused = append(p.refused, fmt.Sprintf("%s %s: %d %s", r.Method, r.URL.RequestURI(), resp.StatusCode, out))
		p.mu.Unlock()
	} else if paged, ok := p.page(r, out); ok {
		out = paged
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// page turns stripe-mock's one-object list into the page the request asked for.
func (p *Pager) page(r *http.Request, body []byte) ([]byte, bool) {
	var list map[string]any
	if json.Unmarshal(body, &list) != nil || list["object"] != "list" {
		return nil, false
	}
	data, _ := list["data"].([]any)
	if len(data) != 1 {
		return nil, false
	}
	fixture, _ := data[0].(map[string]any)
	q := r.URL.Query()
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 {
		limit = 10 // Stripe's default
	}
	start := 0
	if after := q.Get("starting_after"); after != "" {
		i := strings.LastIndex(after, "_")
		n, err := strconv.Atoi(after[i+1:])
		if i < 0 || err != nil {
			return nil, false
		}
		start = n + 1
	}
	items := p.Items
	if n, ok := p.Sizes[r.URL.Path]; ok {
		items = n
	}
	end := min(start+limit, items)
	// A list of one customer's objects holds that customer's, with ids of their own.
	customer := q.Get("customer")
	page := []any{}
	for n := start; n < end; n++ {
		obj := clone(fixture)
		obj["id"] = fmt.Sprintf("%v_%d", fixture["id"], n)
		if customer != "" {
			obj["id"] = fmt.Sprintf("%v_%s_%d", fixture["id"], customer, n)
			if _, ok := obj["customer"]; ok {
				obj["customer"] = customer
			}
		}
		if p.Patch != nil {
			p.Patch(r.URL.Path, obj)
		}
		page = append(page, obj)
	}
	list["data"], list["has_more"] = page, end < items
	out, err := json.Marshal(list)
	return out, err == nil
}

func clone(m map[string]any) map[string]any {
	var out map[string]any
	b, _ := json.Marshal(m)
	_ = json.Unmarshal(b, &out)
	return out
}
