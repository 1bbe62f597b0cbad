package api_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/keys"
)

const (
	plansRoute = "/v1/plans"
	planRoute  = "/v1/plans/{plan_uuid}"
)

func jsonMap(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad JSON literal %s: %v", s, err)
	}
	return m
}

func familyB(message, param string) map[string]any {
	return map[string]any{"error": message, "error_details": []any{
		map[string]any{"param": param, "code": "invalid", "message": message}}}
}

func assertBody(t testing.TB, got, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("body\n got %s\nwant %s", g, w)
	}
}

func (e *resourceEnv) createPlan(dsUUID, externalID, name string) map[string]any {
	e.t.Helper()
	body := map[string]any{"data_source_uuid": dsUUID, "name": name, "interval_count": 1, "interval_unit": "month"}
	if externalID != "" {
		body["external_id"] = externalID
	}
	status, plan := e.do(e.acc, api.CreatePlan, "POST", plansRoute, nil, nil, body)
	if status != 201 {
		e.t.Fatalf("create plan: %d %v", status, plan)
	}
	return plan
}

func (e *resourceEnv) getPlan(accountID, uuid string) (int, map[string]any) {
	e.t.Helper()
	return e.do(accountID, api.GetPlan, "GET", planRoute, map[string]string{"plan_uuid": uuid}, nil, nil)
}

func TestCreatePlan(t *testing.T) {
	e := newResourceEnv(t)
	status, raw := e.raw(e.acc, api.CreatePlan, "POST", plansRoute, nil, map[string]any{
		"data_source_uuid": e.ds.UUID, "name": "Gold", "interval_count": 3, "interval_unit": "month", "external_id": "gold-3m"})
	if status != 201 {
		t.Fatalf("status %d %s", status, raw)
	}
	var plan map[string]any
	_ = json.Unmarshal([]byte(raw), &plan)
	want := fmt.Sprintf(`{"external_id":"gold-3m","name":"Gold","interval_count":3,"interval_unit":"month","data_source_uuid":%q,"uuid":%q}`,
		e.ds.UUID, plan["uuid"])
	if raw != want {
		t.Errorf("body %s\nwant %s", raw, want)
	}

	t.Run("external id defaults to the uuid without pl_", func(t *testing.T) {
		p := e.createPlan(e.ds.UUID, "", "Silver")
		if p["external_id"] != strings.TrimPrefix(p["uuid"].(string), "pl_") {
			t.Errorf("external_id %v for uuid %v", p["external_id"], p["uuid"])
		}
	})
	t.Run("legacy route is an alias", func(t *testing.T) {
		status, p := e.do(e.acc, api.ImportPlan, "POST", "/v1/import/plans", nil, nil, map[string]any{
			"data_source_uuid": e.ds.UUID, "name": "Legacy", "interval_count": 7, "interval_unit": "day"})
		if status != 201 || p["interval_unit"] != "day" || p["interval_count"] != 7.0 {
			t.Fatalf("%d %v", status, p)
		}
	})
	t.Run("same external id in another data source", func(t *testing.T) {
		if p := e.createPlan(e.ds2.UUID, "gold-3m", "Gold elsewhere"); p["data_source_uuid"] != e.ds2.UUID {
			t.Errorf("%v", p)
		}
	})

	deleting := e.dataSource(e.acc, "Going away")
	if err := e.d.Store.MarkDataSourceDeleting(e.ctx, e.acc, deleting.UUID); err != nil {
		t.Fatal(err)
	}
	valid := func(change map[string]any) map[string]any {
		b := map[string]any{"data_source_uuid": e.ds.UUID, "name": "Valid", "interval_count": 1, "interval_unit": "year"}
		for k, v := range change {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	nullMarker := json.RawMessage("null")
	tests := []struct {
		name string
		body any
		want string
	}{
		{"all null (recorded body)", map[string]any{"data_source_uuid": nullMarker, "name": nullMarker,
			"interval_count": nullMarker, "interval_unit": nullMarker},
			`{"errors":{"name":"A unique name is required for each plan.","interval_count":"is not a number","interval_unit":"Only 'day', 'month' or 'year' are valid values for interval_unit.","data_source_uuid":"A valid data source UUID is required for each plan."}}`},
		{"empty body", "{}",
			`{"errors":{"name":"A unique name is required for each plan.","interval_count":"is not a number","interval_unit":"Only 'day', 'month' or 'year' are valid values for interval_unit.","data_source_uuid":"A valid data source UUID is required for each plan."}}`},
		{"bad interval_unit", valid(map[string]any{"interval_unit": "week"}),
			`{"errors":{"interval_unit":"Only 'day', 'month' or 'year' are valid values for interval_unit."}}`},
		{"interval_count zero", valid(map[string]any{"interval_count": 0}), `{"errors":{"interval_count":"must be greater than 0"}}`},
		{"interval_count negative", valid(map[string]any{"interval_count": -2}), `{"errors":{"interval_count":"must be greater than 0"}}`},
		{"interval_count fraction", valid(map[string]any{"interval_count": 1.5}), `{"errors":{"interval_count":"must be an integer"}}`},
		{"interval_count text", valid(map[string]any{"interval_count": "often"}), `{"errors":{"interval_count":"is not a number"}}`},
		{"interval_count huge", valid(map[string]any{"interval_count": 1e12}), `{"errors":{"interval_count":"must be less than or equal to 2147483647"}}`},
		{"blank name", valid(map[string]any{"name": "  "}), `{"errors":{"name":"A unique name is required for each plan."}}`},
		{"name too long", valid(map[string]any{"name": strings.Repeat("n", 256)}), `{"errors":{"name":"is too long (maximum is 255 characters)"}}`},
		{"external id too long", valid(map[string]any{"external_id": strings.Repeat("x", 256)}), `{"errors":{"external_id":"is too long (maximum is 255 characters)"}}`},
		{"external id not a string", valid(map[string]any{"external_id": []int{1}}), `{"errors":{"external_id":"is invalid"}}`},
		{"unknown data source", valid(map[string]any{"data_source_uuid": "ds_00000000-0000-7000-8000-000000000000"}),
			`{"errors":{"data_source_uuid":"A valid data source UUID is required for each plan."}}`},
		{"malformed data source", valid(map[string]any{"data_source_uuid": "nope"}),
			`{"errors":{"data_source_uuid":"A valid data source UUID is required for each plan."}}`},
		{"another account's data source", valid(map[string]any{"data_source_uuid": e.otherDS.UUID}),
			`{"errors":{"data_source_uuid":"A valid data source UUID is required for each plan."}}`},
		{"data source being deleted", valid(map[string]any{"data_source_uuid": deleting.UUID}),
			`{"errors":{"data_source_uuid":"A valid data source UUID is required for each plan."}}`},
		{"external id clash", valid(map[string]any{"external_id": "gold-3m"}),
			`{"errors":{"external_id":"The external ID for this plan already exists in our system."}}`},
	}
	for _, tt := range tests {
		for _, route := range []struct {
			ep   func(*api.Deps) apigw.Endpoint
			path string
		}{{api.CreatePlan, plansRoute}, {api.ImportPlan, "/v1/import/plans"}} {
			t.Run(tt.name+" "+route.path, func(t *testing.T) {
				status, got := e.do(e.acc, route.ep, "POST", route.path, nil, nil, tt.body)
				if status != 422 {
					t.Fatalf("status %d %v", status, got)
				}
				assertBody(t, got, jsonMap(t, tt.want))
			})
		}
	}
	// Nothing of the refused creations was stored: one plan per external id and no
	// "Valid" plan at all.
	_, list := e.do(e.acc, api.ListPlans, "GET", plansRoute, nil, url.Values{"external_id": {"gold-3m"}}, nil)
	if n := len(list["plans"].([]any)); n != 2 {
		t.Errorf("plans with external id gold-3m: %d, want 2 (one per data source)", n)
	}
	_, all := e.do(e.acc, api.ListPlans, "GET", plansRoute, nil, nil, nil)
	for _, p := range all["plans"].([]any) {
		if p.(map[string]any)["name"] == "Valid" {
			t.Errorf("a refused plan was stored: %v", p)
		}
	}
}

func TestGetPlanNotFound(t *testing.T) {
	e := newResourceEnv(t)
	p := e.createPlan(e.ds.UUID, "p1", "P1")
	if status, got := e.getPlan(e.acc, p["uuid"].(string)); status != 200 || got["name"] != "P1" {
		t.Fatalf("%d %v", status, got)
	}
	tests := []struct{ name, account, uuid string }{
		{"another account's key", e.other, p["uuid"].(string)},
		{"unknown uuid", e.acc, "pl_00000000-0000-7000-8000-000000000000"},
		{"malformed uuid", e.acc, "pl_nope"},
		{"other prefix", e.acc, strings.Replace(p["uuid"].(string), "pl_", "ds_", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := e.getPlan(tt.account, tt.uuid)
			if status != 404 {
				t.Fatalf("status %d", status)
			}
			assertBody(t, got, familyB("Plan not found", "plan_uuid"))
		})
	}
}

func TestUpdatePlan(t *testing.T) {
	e := newResourceEnv(t)
	p := e.createPlan(e.ds.UUID, "up", "Before")
	uuid := p["uuid"].(string)
	patch := func(accountID string, body any) (int, map[string]any) {
		return e.do(accountID, api.UpdatePlan, "PATCH", planRoute, map[string]string{"plan_uuid": uuid}, nil, body)
	}
	status, got := patch(e.acc, map[string]any{"name": "After", "interval_count": 2, "interval_unit": "year",
		"external_id": "up", "data_source_uuid": e.ds.UUID})
	if status != 202 || got["name"] != "After" || got["interval_count"] != 2.0 || got["interval_unit"] != "year" {
		t.Fatalf("%d %v", status, got)
	}
	_, stored := e.getPlan(e.acc, uuid)

	refused := []struct {
		name    string
		account string
		body    any
		status  int
		want    map[string]any
	}{
		{"bad interval_unit", e.acc, map[string]any{"interval_unit": "fortnight"}, 422,
			familyB("Only 'day', 'month' or 'year' are valid values for interval_unit.", "interval_unit")},
		{"interval_count zero", e.acc, map[string]any{"interval_count": 0}, 422,
			familyB("Interval count must be greater than 0.", "interval_count")},
		{"interval_count null", e.acc, `{"interval_count":null}`, 422,
			familyB("Interval count is not a number.", "interval_count")},
		{"blank name", e.acc, map[string]any{"name": ""}, 422,
			familyB("A unique name is required for each plan.", "name")},
		{"external id change", e.acc, map[string]any{"external_id": "other"}, 422,
			familyB("The external ID of a plan cannot be changed.", "external_id")},
		{"data source change", e.acc, map[string]any{"data_source_uuid": e.ds2.UUID}, 422,
			familyB("The data source of a plan cannot be changed.", "data_source_uuid")},
		{"another account's key", e.other, map[string]any{"name": "Stolen"}, 404,
			familyB("Plan not found", "plan_uuid")},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			status, got := patch(tt.account, tt.body)
			if status != tt.status {
				t.Fatalf("status %d %v", status, got)
			}
			assertBody(t, got, tt.want)
			_, now := e.getPlan(e.acc, uuid)
			assertBody(t, now, stored)
		})
	}

	t.Run("referenced plan keeps its interval", func(t *testing.T) {
		if err := e.d.Store.MarkPlanReferenced(e.ctx, e.acc, e.ds.UUID, uuid); err != nil {
			t.Fatal(err)
		}
		msg := "The plan's interval cannot be changed because subscriptions or invoices use the plan."
		for _, tc := range []struct {
			body  map[string]any
			param string
		}{
			{map[string]any{"interval_count": 6}, "interval_count"},
			{map[string]any{"interval_unit": "month"}, "interval_unit"},
			{map[string]any{"name": "Renamed too", "interval_count": 2, "interval_unit": "day"}, "interval_unit"},
		} {
			status, got := patch(e.acc, tc.body)
			if status != 422 {
				t.Fatalf("%v: status %d %v", tc.body, status, got)
			}
			assertBody(t, got, familyB(msg, tc.param))
			_, now := e.getPlan(e.acc, uuid)
			assertBody(t, now, stored)
		}
		// Renaming, and sending the interval it already has, stay allowed.
		status, got := patch(e.acc, map[string]any{"name": "Renamed", "interval_count": 2, "interval_unit": "year"})
		if status != 202 || got["name"] != "Renamed" {
			t.Fatalf("%d %v", status, got)
		}
		if err := e.d.Store.ReleasePlanReference(e.ctx, e.acc, e.ds.UUID, uuid); err != nil {
			t.Fatal(err)
		}
		if status, got := patch(e.acc, map[string]any{"interval_unit": "month"}); status != 202 || got["interval_unit"] != "month" {
			t.Fatalf("after release: %d %v", status, got)
		}
	})
}

func TestDeletePlan(t *testing.T) {
	e := newResourceEnv(t)
	p := e.createPlan(e.ds.UUID, "del", "Doomed")
	uuid := p["uuid"].(string)
	del := func(accountID string) (int, map[string]any) {
		return e.do(accountID, api.DeletePlan, "DELETE", planRoute, map[string]string{"plan_uuid": uuid}, nil, nil)
	}
	if status, got := del(e.other); status != 404 {
		t.Fatalf("other account: %d %v", status, got)
	}
	if err := e.d.Store.MarkPlanReferenced(e.ctx, e.acc, e.ds.UUID, uuid); err != nil {
		t.Fatal(err)
	}
	status, got := del(e.acc)
	if status != 422 {
		t.Fatalf("referenced: %d %v", status, got)
	}
	assertBody(t, got, familyB("The plan cannot be deleted because subscriptions or invoices use it.", "plan_uuid"))
	if status, _ := e.getPlan(e.acc, uuid); status != 200 {
		t.Fatalf("referenced plan gone: %d", status)
	}
	if err := e.d.Store.ReleasePlanReference(e.ctx, e.acc, e.ds.UUID, uuid); err != nil {
		t.Fatal(err)
	}
	if status, got := del(e.acc); status != 204 || got != nil {
		t.Fatalf("delete: %d %v", status, got)
	}
	if status, _ := e.getPlan(e.acc, uuid); status != 404 {
		t.Fatalf("deleted plan: %d", status)
	}
	if status, _ := del(e.acc); status != 404 {
		t.Fatalf("second delete: %d", status)
	}
	// The external id is free again.
	e.createPlan(e.ds.UUID, "del", "Reborn")
}

func TestDataSourcePurgeRemovesPlans(t *testing.T) {
	e := newResourceEnv(t)
	p := e.createPlan(e.ds2.UUID, "purged", "Purged")
	kept := e.createPlan(e.ds.UUID, "kept", "Kept")
	if _, err := e.d.Store.DeletePartition(e.ctx, keys.DataSourcePartition(e.acc, e.ds2.UUID)); err != nil {
		t.Fatal(err)
	}
	if status, _ := e.getPlan(e.acc, p["uuid"].(string)); status != 404 {
		t.Errorf("purged plan: %d", status)
	}
	_, list := e.do(e.acc, api.ListPlans, "GET", plansRoute, nil, nil, nil)
	plans := list["plans"].([]any)
	if len(plans) != 1 || plans[0].(map[string]any)["uuid"] != kept["uuid"] {
		t.Errorf("plans after purge: %v", plans)
	}
}
