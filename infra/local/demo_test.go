package main

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/repo"
)

// TestGeneratedCustomers: a customer depends on its number alone (an account is the same
// whatever the chunks it is sent in), and a json_import of demoChunk generated customers
// fits the API's 5 MB body limit.
func TestGeneratedCustomers(t *testing.T) {
	all := generatedCustomers(0, 600)
	for _, tc := range []struct{ first, n int }{{0, 1}, {17, 40}, {250, 250}, {599, 1}} {
		if got := generatedCustomers(tc.first, tc.n); !reflect.DeepEqual(got, all[tc.first:tc.first+tc.n]) {
			t.Errorf("generatedCustomers(%d, %d) differs from the same customers drawn among 600", tc.first, tc.n)
		}
	}
	kinds := map[int]int{}
	for _, c := range all {
		kinds[len(c.subs)]++
	}
	if kinds[1] == 0 || kinds[2] == 0 {
		t.Errorf("subscriptions per customer %v: want customers with one and with two runs", kinds)
	}
	raw, err := json.Marshal(demoPayload(time.Now().UTC(), "size", all[:demoChunk]))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > demoBodyLimit {
		t.Errorf("a json_import of %d generated customers is %d bytes, over %d", demoChunk, len(raw), demoBodyLimit)
	}
}

// TestDemoLoadsAGeneratedAccount runs `local demo` against a stack of its own, found
// through its stack file: every generated customer is imported, and once the demo says
// the metrics have settled, the Metrics API counts today every customer whose status is
// Active.
func TestDemoLoadsAGeneratedAccount(t *testing.T) {
	ctx := context.Background()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "stack.json")
	s, err := newStack(ctx, options{root: root, addr: "127.0.0.1:0", demoLimits: testLimits, apiKey: "demo_load_0123456789abcdef", motoOutput: io.Discard,
		retryDelay: 100 * time.Millisecond, stackFile: file})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := runDemo(ctx, []string{"-customers", "24", "-stack", file}); err != nil {
		t.Fatal(err)
	}
	client := &benchClient{base: s.baseURL, key: s.apiKey}
	var page struct {
		Entries []struct {
			ExternalID string `json:"external_id"`
			Status     string `json:"status"`
		} `json:"entries"`
	}
	client.do(t, "GET", "/v1/customers?per_page=200", nil, &page)
	active, imported := 0, map[string]bool{}
	for _, c := range page.Entries {
		imported[c.ExternalID] = true
		if c.Status == "Active" {
			active++
		}
	}
	for _, c := range generatedCustomers(0, 24) {
		if !imported[c.id] {
			t.Errorf("generated customer %s was not imported", c.id)
		}
	}
	today := time.Now().UTC().Format(time.DateOnly)
	var count struct {
		Entries []struct {
			Customers int `json:"customers"`
		} `json:"entries"`
	}
	client.do(t, "GET", "/v1/metrics/customer-count?"+url.Values{"start-date": {today}, "end-date": {today}, "interval": {"day"}}.Encode(), nil, &count)
	if len(count.Entries) != 1 || count.Entries[0].Customers != active {
		t.Errorf("customer-count today %+v, want the %d customers with status Active", count.Entries, active)
	}
}
