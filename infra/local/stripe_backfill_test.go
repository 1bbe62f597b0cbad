package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// backfilledCustomer is the one customer of the test stack's Stripe account.
const backfilledCustomer = "cus_local_backfill"

// fakeStripeAccount is the Stripe API the test stack's backfills read
// (LOCAL_STRIPE_API_BASE's place): an account with one customer and nothing else, every
// list in one page. Any other request is Stripe's 404.
func fakeStripeAccount() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/customers":
			fmt.Fprintf(w, `{"object":"list","url":"/v1/customers","has_more":false,"data":[{"id":%q,"object":"customer",`+
				`"name":"Backfilled Customer","email":"backfilled@example.com","created":1767225600}]}`, backfilledCustomer)
		case "/v1/prices", "/v1/subscriptions", "/v1/invoices", "/v1/charges":
			fmt.Fprintf(w, `{"object":"list","url":%q,"has_more":false,"data":[]}`, r.URL.Path)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"type":"invalid_request_error","message":"Unrecognized request URL"}}`)
		}
	}))
}

// TestStripeBackfill: on the local stack, a backfill started through the router runs
// in the Stripe backfill queue's poller (the backfill worker, as make run wires it),
// reads the account's Stripe history and applies its customer, and its progress says
// done.
func TestStripeBackfill(t *testing.T) {
	status, ds := call(t, "POST", "/v1/data_sources", map[string]any{"name": "Local Stripe backfill"})
	if status != http.StatusCreated {
		t.Fatalf("create data source: %d %v", status, ds)
	}
	uuid := ds["uuid"].(string)
	path := "/v1/data_sources/" + uuid + "/stripe"
	if status, body := call(t, "PUT", path, map[string]any{"webhook_secret": "whsec_local", "api_key": "rk_test_local"}); status != 200 {
		t.Fatalf("connect: %d %v", status, body)
	}
	if status, body := call(t, "POST", path+"/backfill", nil); status != http.StatusAccepted || body["status"] != "queued" {
		t.Fatalf("start: %d %v", status, body)
	}
	var progress map[string]any
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, progress = call(t, "GET", path+"/backfill", nil)
		if progress["status"] == "done" || progress["status"] == "failed" || time.Now().After(deadline) {
			break
		}
	}
	counts, _ := progress["counts"].(map[string]any)
	if progress["status"] != "done" || counts["customers"] != float64(1) {
		t.Fatalf("backfill %v, want done with its one customer", progress)
	}
	status, list := call(t, "GET", "/v1/customers?data_source_uuid="+uuid+"&external_id="+backfilledCustomer, nil)
	if entries, _ := list["entries"].([]any); status != 200 || len(entries) != 1 {
		t.Errorf("the backfilled customer: %d %v", status, list)
	}
}
