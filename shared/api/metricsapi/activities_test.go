package metricsapi_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

var activityKeys = []string{"activity-arr", "activity-mrr", "activity-mrr-movement", "billing-connector-uuid", "currency",
	"customer-external-id", "customer-name", "customer-uuid", "date", "description", "plan-external-id",
	"subscription-external-id", "subscription-set-external-id", "type", "uuid"}

func TestListActivities(t *testing.T) {
	e := apitest.NewMetricsEnv(t)
	status, body := e.Get("ListActivities", e.Acc, apitest.Query("per_page", "200"))
	if status != http.StatusOK {
		t.Fatalf("%d %v", status, body)
	}
	entries := body["entries"].([]any)
	if len(entries) != 9 || body["has_more"] != false || body["per_page"] != 200.0 {
		t.Fatalf("first page: %d entries, has_more %v, per_page %v", len(entries), body["has_more"], body["per_page"])
	}
	first := entries[0].(map[string]any)
	if !reflect.DeepEqual(apitest.KeysOf(first), activityKeys) {
		t.Fatalf("keys %v", apitest.KeysOf(first))
	}
	want := map[string]any{"date": "2023-12-15T09:00:00+00:00", "type": "new_biz", "activity-mrr-movement": 4000.0,
		"activity-mrr": 4000.0, "activity-arr": 48000.0, "currency": "USD", "customer-uuid": "cus_D", "customer-name": "Customer D",
		"customer-external-id": "ext-D", "plan-external-id": "gold-ext", "subscription-external-id": "s-gold-ext",
		"description": "new_biz the Gold plan",
		// without a set, the subscription is its own set (recorded), never null
		"subscription-set-external-id": "s-gold-ext"}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("%s = %v, want %v", k, first[k], v)
		}
	}

	// Pages of two with the cursor give the same list; follow-up pages carry no per_page.
	var uuids []any
	q := apitest.Query("per_page", "2")
	for range 10 {
		status, page := e.Get("ListActivities", e.Acc, q)
		if status != http.StatusOK {
			t.Fatalf("%d %v", status, page)
		}
		uuids = append(uuids, apitest.Field(page, "uuid")...)
		if q.Has("cursor") && page["per_page"] != nil {
			t.Errorf("cursor page carries per_page")
		}
		if page["has_more"] != true {
			break
		}
		q.Set("cursor", page["cursor"].(string))
	}
	if !reflect.DeepEqual(uuids, apitest.Field(body, "uuid")) {
		t.Errorf("paged uuids %v\nwant %v", uuids, apitest.Field(body, "uuid"))
	}

	filters := []struct {
		kv    []string
		count int
		first string
	}{
		{[]string{"type", "churn"}, 2, "2024-02-15T09:00:00+00:00"},
		{[]string{"type", "churn", "order", "-date"}, 2, "2024-03-03T09:00:00+00:00"},
		{[]string{"start-date", "2024-02-01", "end-date", "2024-02-15"}, 3, "2024-02-01T09:00:00+00:00"},
		{[]string{"start-date", "2024-02-15T10:00:00Z"}, 2, "2024-03-03T09:00:00+00:00"},
	}
	for _, f := range filters {
		status, page := e.Get("ListActivities", e.Acc, apitest.Query(f.kv...))
		if dates := apitest.Field(page, "date"); status != http.StatusOK || len(dates) != f.count || dates[0] != f.first {
			t.Errorf("%v: %d %v", f.kv, status, dates)
		}
	}

	_, page := e.Get("ListActivities", e.Acc, apitest.Query("per_page", "1"))
	cursor := page["cursor"].(string)
	bad := []struct {
		account string
		kv      []string
		param   string
	}{
		{e.Acc, []string{"cursor", cursor + "x"}, "cursor"},
		{e.Other, []string{"per_page", "1", "cursor", cursor}, "cursor"},
		{e.Acc, []string{"type", "churn", "cursor", cursor}, "cursor"},
		{e.Acc, []string{"type", "upgrade"}, "type"},
		{e.Acc, []string{"order", "date desc"}, "order"},
		{e.Acc, []string{"start-date", "yesterday"}, "start-date"},
		{e.Acc, []string{"start-date", "2024-03-01", "end-date", "2024-02-01"}, "end-date"},
		{e.Acc, []string{"per_page", "0"}, "per_page"},
	}
	for _, b := range bad {
		status, body := e.Get("ListActivities", b.account, apitest.Query(b.kv...))
		if status != http.StatusBadRequest || body["param"] != b.param || body["code"] != 400.0 {
			t.Errorf("%v: %d %v", b.kv, status, body)
		}
	}
	if _, other := e.Get("ListActivities", e.Other, nil); len(other["entries"].([]any)) != 0 {
		t.Errorf("another account sees activities")
	}
}
