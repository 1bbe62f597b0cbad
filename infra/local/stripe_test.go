package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// call sends one request with the test key to the local stack and decodes its JSON answer.
func call(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		in = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, testStack.baseURL+path, in)
	req.SetBasicAuth(testKey, "")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if b, _ := io.ReadAll(resp.Body); len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s %s: %d %q", method, path, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, out
}

// TestStripeConnection: on the local stack, a data source is connected through the
// router and the stack's KMS key, and its webhook URL is under the stack's base URL.
func TestStripeConnection(t *testing.T) {
	status, ds := call(t, "POST", "/v1/data_sources", map[string]any{"name": "Local Stripe"})
	if status != http.StatusCreated {
		t.Fatalf("create data source: %d %v", status, ds)
	}
	path := "/v1/data_sources/" + ds["uuid"].(string) + "/stripe"
	wantURL := testStack.baseURL + "/stripe/webhooks/" + ds["uuid"].(string)
	steps := []struct {
		method string
		body   any
		status int
		url    string
	}{
		{"PUT", map[string]any{"webhook_secret": "whsec_local", "api_key": "rk_test_local"}, 200, wantURL},
		{"GET", nil, 200, wantURL},
		{"DELETE", nil, 204, ""},
		{"GET", nil, 404, ""},
	}
	for _, s := range steps {
		status, body := call(t, s.method, path, s.body)
		if status != s.status {
			t.Fatalf("%s %s: %d %v, want %d", s.method, path, status, body, s.status)
		}
		if s.url != "" && body["webhook_url"] != s.url {
			t.Fatalf("%s webhook_url = %v, want %s", s.method, body["webhook_url"], s.url)
		}
	}
}
