package billing_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/keys"
)

func familyB(message, param string) map[string]any {
	return map[string]any{"error": message, "error_details": []any{
		map[string]any{"param": param, "code": "invalid", "message": message}}}
}

func TestCreatePlan(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	status, raw := e.Raw(e.Acc, "CreatePlan", nil, map[string]any{
		"data_source_uuid": e.DS.UUID, "name": "Gold", "interval_count": 3, "interval_unit": "month", "external_id": "gold-3m"})
	if status != 201 {
		t.Fatalf("status %d %s", status, raw)
	}
	var plan map[string]any
	_ = json.Unmarshal([]byte(raw), &plan)
	want := fmt.Sprintf(`{"external_id":"gold-3m","name":"Gold","interval_count":3,"interval_unit":"month","data_source_uuid":%q,"uuid":%q}`,
		e.DS.UUID, plan["uuid"])
	if raw != want {
		t.Errorf("body %s\nwant %s", raw, want)
	}

	t.Run("external id defaults to the uuid without pl_", func(t *testing.T) {
		p := e.CreatePlan(e.DS.UUID, "", "Silver")
		if p["external_id"] != strings.TrimPrefix(p["uuid"].(string), "pl_") {
			t.Errorf("external_id %v for uuid %v", p["external_id"], p["uuid"])
		}
	})
	t.Run("legacy route is an alias", func(t *testing.T) {
		status, p := e.Do(e.Acc, "ImportPlan", nil, nil, map[string]any{
			"data_source_uuid": e.DS.UUID, "name": "Legacy", "interval_count": 7, "interval_unit": "day"})
		if status != 201 || p["interval_unit"] != "day" || p["interval_count"] != 7.0 {
			t.Fatalf("%d %v", status, p)
		}
	})
	t.Run("same external id in another data source", func(t *testing.T) {
		if p := e.CreatePlan(e.DS2.UUID, "gold-3m", "Gold elsewhere"); p["data_source_uuid"] != e.DS2.UUID {
			t.Errorf("%v", p)
		}
	})

	deleting := e.DataSource(e.Acc, "Going away")
	if err := e.D.Store.MarkDataSourceDeleting(e.Ctx, e.Acc, deleting.UUID); err != nil {
		t.Fatal(err)
	}
	valid := func(change map[string]any) map[string]any {
		b := map[string]any{"data_source_uuid": e.DS.UUID, "name": "Valid", "interval_count": 1, "interval_unit": "year"}
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
		{"another account's data source", valid(map[string]any{"data_source_uuid": e.OtherDS.UUID}),
			`{"errors":{"data_source_uuid":"A valid data source UUID is required for each plan."}}`},
		{"data source being deleted", valid(map[string]any{"data_source_uuid": deleting.UUID}),
			`{"errors":{"data_source_uuid":"A valid data source UUID is required for each plan."}}`},
		{"external id clash", valid(map[string]any{"external_id": "gold-3m"}),
			`{"errors":{"external_id":"The external ID for this plan already exists in our system."}}`},
	}
	for _, tt := range tests {
		for _, op := range []string{"CreatePlan", "ImportPlan"} {
			t.Run(tt.name+" "+op, func(t *testing.T) {
				status, got := e.Do(e.Acc, op, nil, nil, tt.body)
				if status != 422 {
					t.Fatalf("status %d %v", status, got)
				}
				apitest.AssertBody(t, got, apitest.JSONMap(t, tt.want))
			})
		}
	}
	// Nothing of the refused creations was stored: one plan per external id and no
	// "Valid" plan at all.
	_, list := e.Do(e.Acc, "ListPlans", nil, url.Values{"external_id": {"gold-3m"}}, nil)
	if n := len(list["plans"].([]any)); n != 2 {
		t.Errorf("plans with external id gold-3m: %d, want 2 (one per data source)", n)
	}
	_, all := e.Do(e.Acc, "ListPlans", nil, nil, nil)
	for _, p := range all["plans"].([]any) {
		if p.(map[string]any)["name"] == "Valid" {
			t.Errorf("a refused plan was stored: %v", p)
		}
	}
}

func TestGetPlanNotFound(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	p := e.CreatePlan(e.DS.UUID, "p1", "P1")
	if status, got := e.GetPlan(e.Acc, p["uuid"].(string)); status != 200 || got["name"] != "P1" {
		t.Fatalf("%d %v", status, got)
	}
	tests := []struct{ name, account, uuid string }{
		{"another account's key", e.Other, p["uuid"].(string)},
		{"unknown uuid", e.Acc, "pl_00000000-0000-7000-8000-000000000000"},
		{"malformed uuid", e.Acc, "pl_nope"},
		{"other prefix", e.Acc, strings.Replace(p["uuid"].(string), "pl_", "ds_", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := e.GetPlan(tt.account, tt.uuid)
			if status != 404 {
				t.Fatalf("status %d", status)
			}
			apitest.AssertBody(t, got, familyB("Plan not found", "plan_uuid"))
		})
	}
}

func TestUpdatePlan(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	p := e.CreatePlan(e.DS.UUID, "up", "Before")
	uuid := p["uuid"].(string)
	patch := func(accountID string, body any) (int, map[string]any) {
		return e.Do(accountID, "UpdatePlan", map[string]string{"plan_uuid": uuid}, nil, body)
	}
	status, got := patch(e.Acc, map[string]any{"name": "After", "interval_count": 2, "interval_unit": "year",
		"external_id": "up", "data_source_uuid": e.DS.UUID})
	if status != 202 || got["name"] != "After" || got["interval_count"] != 2.0 || got["interval_unit"] != "year" {
		t.Fatalf("%d %v", status, got)
	}
	_, stored := e.GetPlan(e.Acc, uuid)

	refused := []struct {
		name    string
		account string
		body    any
		status  int
		want    map[string]any
	}{
		{"bad interval_unit", e.Acc, map[string]any{"interval_unit": "fortnight"}, 422,
			familyB("Only 'day', 'month' or 'year' are valid values for interval_unit.", "interval_unit")},
		{"interval_count zero", e.Acc, map[string]any{"interval_count": 0}, 422,
			familyB("Interval count must be greater than 0.", "interval_count")},
		{"interval_count null", e.Acc, `{"interval_count":null}`, 422,
			familyB("Interval count is not a number.", "interval_count")},
		{"blank name", e.Acc, map[string]any{"name": ""}, 422,
			familyB("A unique name is required for each plan.", "name")},
		{"external id change", e.Acc, map[string]any{"external_id": "other"}, 422,
			familyB("The external ID of a plan cannot be changed.", "external_id")},
		{"data source change", e.Acc, map[string]any{"data_source_uuid": e.DS2.UUID}, 422,
			familyB("The data source of a plan cannot be changed.", "data_source_uuid")},
		{"another account's key", e.Other, map[string]any{"name": "Stolen"}, 404,
			familyB("Plan not found", "plan_uuid")},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			status, got := patch(tt.account, tt.body)
			if status != tt.status {
				t.Fatalf("status %d %v", status, got)
			}
			apitest.AssertBody(t, got, tt.want)
			_, now := e.GetPlan(e.Acc, uuid)
			apitest.AssertBody(t, now, stored)
		})
	}

	t.Run("referenced plan keeps its interval", func(t *testing.T) {
		if err := e.D.Store.MarkPlanReferenced(e.Ctx, e.Acc, e.DS.UUID, uuid); err != nil {
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
			status, got := patch(e.Acc, tc.body)
			if status != 422 {
				t.Fatalf("%v: status %d %v", tc.body, status, got)
			}
			apitest.AssertBody(t, got, familyB(msg, tc.param))
			_, now := e.GetPlan(e.Acc, uuid)
			apitest.AssertBody(t, now, stored)
		}
		// Renaming, and sending the interval it already has, stay allowed.
		status, got := patch(e.Acc, map[string]any{"name": "Renamed", "interval_count": 2, "interval_unit": "year"})
		if status != 202 || got["name"] != "Renamed" {
			t.Fatalf("%d %v", status, got)
		}
		if err := e.D.Store.ReleasePlanReference(e.Ctx, e.Acc, e.DS.UUID, uuid); err != nil {
			t.Fatal(err)
		}
		if status, got := patch(e.Acc, map[string]any{"interval_unit": "month"}); status != 202 || got["interval_unit"] != "month" {
			t.Fatalf("after release: %d %v", status, got)
		}
	})
}

func TestDeletePlan(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	p := e.CreatePlan(e.DS.UUID, "del", "Doomed")
	uuid := p["uuid"].(string)
	del := func(accountID string) (int, map[string]any) {
		return e.Do(accountID, "DeletePlan", map[string]string{"plan_uuid": uuid}, nil, nil)
	}
	if status, got := del(e.Other); status != 404 {
		t.Fatalf("other account: %d %v", status, got)
	}
	if err := e.D.Store.MarkPlanReferenced(e.Ctx, e.Acc, e.DS.UUID, uuid); err != nil {
		t.Fatal(err)
	}
	status, got := del(e.Acc)
	if status != 422 {
		t.Fatalf("referenced: %d %v", status, got)
	}
	apitest.AssertBody(t, got, familyB("The plan cannot be deleted because subscriptions or invoices use it.", "plan_uuid"))
	if status, _ := e.GetPlan(e.Acc, uuid); status != 200 {
		t.Fatalf("referenced plan gone: %d", status)
	}
	if err := e.D.Store.ReleasePlanReference(e.Ctx, e.Acc, e.DS.UUID, uuid); err != nil {
		t.Fatal(err)
	}
	if status, got := del(e.Acc); status != 204 || got != nil {
		t.Fatalf("delete: %d %v", status, got)
	}
	if status, _ := e.GetPlan(e.Acc, uuid); status != 404 {
		t.Fatalf("deleted plan: %d", status)
	}
	if status, _ := del(e.Acc); status != 404 {
		t.Fatalf("second delete: %d", status)
	}
	// The external id is free again.
	e.CreatePlan(e.DS.UUID, "del", "Reborn")
}

func TestDataSourcePurgeRemovesPlans(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	p := e.CreatePlan(e.DS2.UUID, "purged", "Purged")
	kept := e.CreatePlan(e.DS.UUID, "kept", "Kept")
	if _, err := e.D.Store.DeletePartition(e.Ctx, keys.DataSourcePartition(e.Acc, e.DS2.UUID)); err != nil {
		t.Fatal(err)
	}
	if status, _ := e.GetPlan(e.Acc, p["uuid"].(string)); status != 404 {
		t.Errorf("purged plan: %d", status)
	}
	_, list := e.Do(e.Acc, "ListPlans", nil, nil, nil)
	plans := list["plans"].([]any)
	if len(plans) != 1 || plans[0].(map[string]any)["uuid"] != kept["uuid"] {
		t.Errorf("plans after purge: %v", plans)
	}
}
