package apitest

import (
	"encoding/json"
	"reflect"
	"testing"
)

func JSONMap(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad JSON literal %s: %v", s, err)
	}
	return m
}

func AssertBody(t testing.TB, got, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("body\n got %s\nwant %s", g, w)
	}
}

func (e *ResourceEnv) CreatePlan(dsUUID, externalID, name string) map[string]any {
	e.t.Helper()
	body := map[string]any{"data_source_uuid": dsUUID, "name": name, "interval_count": 1, "interval_unit": "month"}
	if externalID != "" {
		body["external_id"] = externalID
	}
	status, plan := e.Do(e.Acc, "CreatePlan", nil, nil, body)
	if status != 201 {
		e.t.Fatalf("create plan: %d %v", status, plan)
	}
	return plan
}

func (e *ResourceEnv) GetPlan(accountID, uuid string) (int, map[string]any) {
	e.t.Helper()
	return e.Do(accountID, "GetPlan", map[string]string{"plan_uuid": uuid}, nil, nil)
}
