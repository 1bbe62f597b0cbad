package billing_test

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

// TestPlanGroups: the recorded answers (create 200 with plans_count, the family E 422
// for {}, delete 204), plans in the group's order with the recorded key order, the
// legacy page keys, and another account's groups and plans out of reach.
func TestPlanGroups(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	var plans []string
	for i := range 3 {
		plans = append(plans, e.CreatePlan(e.DS.UUID, fmt.Sprint("grouped-", i), fmt.Sprint("Plan ", i))["uuid"].(string))
	}
	status, raw := e.Raw(e.Acc, "CreatePlanGroup", nil,
		map[string]any{"name": "New Plan Group", "plans": []string{plans[2], plans[0], plans[2]}})
	uuid := regexp.MustCompile(`"uuid":"(plg_[^"]+)"`).FindStringSubmatch(raw)
	if status != 200 || uuid == nil || raw != fmt.Sprintf(`{"name":"New Plan Group","uuid":%q,"plans_count":2}`, uuid[1]) {
		t.Fatalf("create: %d %s", status, raw)
	}
	params := map[string]string{"plan_group_uuid": uuid[1]}

	status, raw = e.Raw(e.Acc, "CreatePlanGroup", nil, map[string]any{})
	if want := `{"name":["Name can't be blank"],"plan_ids":["Plan ids can't be blank"],"error_details":[` +
		`{"param":"name","code":"blank","message":"Name can't be blank"},` +
		`{"param":"plan_ids","code":"blank","message":"Plan ids can't be blank"}]}`; status != 422 || raw != want {
		t.Errorf("create {}: %d %s\nwant %s", status, raw, want)
	}
	otherPlan := ""
	{
		status, p := e.Do(e.Other, "CreatePlan", nil, nil, map[string]any{"data_source_uuid": e.OtherDS.UUID,
			"name": "Theirs", "interval_count": 1, "interval_unit": "month"})
		if status != 201 {
			t.Fatal(p)
		}
		otherPlan = p["uuid"].(string)
	}
	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"another account's plan", map[string]any{"name": "G", "plans": []string{plans[0], otherPlan}},
			fmt.Sprintf(`{"plan_ids":["Plan \"%s\" does not exist"],"error_details":[{"param":"plan_ids","code":"invalid","message":"Plan \"%s\" does not exist"}]}`, otherPlan, otherPlan)},
		{"plans not a list", map[string]any{"name": "G", "plans": "pl_x"},
			`{"plan_ids":["Plan ids must be a list of plan uuids"],"error_details":[{"param":"plan_ids","code":"invalid","message":"Plan ids must be a list of plan uuids"}]}`},
		{"name not a string, no plans", map[string]any{"name": 5, "plans": []string{}},
			`{"name":["Name must be a string"],"plan_ids":["Plan ids can't be blank"],"error_details":[{"param":"name","code":"invalid","message":"Name must be a string"},{"param":"plan_ids","code":"blank","message":"Plan ids can't be blank"}]}`},
	} {
		if status, raw := e.Raw(e.Acc, "CreatePlanGroup", nil, tc.body); status != 422 || raw != tc.want {
			t.Errorf("%s: %d %s", tc.name, status, raw)
		}
	}

	_, got := e.Do(e.Acc, "GetPlanGroup", params, nil, nil)
	apitest.AssertBody(t, got, map[string]any{"name": "New Plan Group", "uuid": uuid[1], "plans_count": 2.0})
	status, raw = e.Raw(e.Acc, "ListPlanGroupPlans", params, nil)
	if status != 200 || !regexp.MustCompile(`^\{"plans":\[\{"name":"Plan 2","uuid":"`+plans[2]+`","data_source_uuid":"`+e.DS.UUID+
		`","interval_count":1,"interval_unit":"month","external_id":"grouped-2"\},\{"name":"Plan 0",.*\],"current_page":1,"total_pages":1,"cursor":"[^"]+","has_more":false\}$`).MatchString(raw) {
		t.Errorf("group plans: %d %s", status, raw)
	}
	_, page := e.Do(e.Acc, "ListPlanGroupPlans", params, url.Values{"per_page": {"1"}}, nil)
	if apitest.UUIDsOf(page["plans"])[0] != plans[2] || page["has_more"] != true || page["total_pages"] != 2.0 {
		t.Errorf("first page of one: %v", page)
	}
	_, next := e.Do(e.Acc, "ListPlanGroupPlans", params,
		url.Values{"per_page": {"1"}, "cursor": {page["cursor"].(string)}}, nil)
	if !reflect.DeepEqual(apitest.UUIDsOf(next["plans"]), []string{plans[0]}) || next["has_more"] != false || next["current_page"] != nil {
		t.Errorf("second page: %v", next)
	}

	// PATCH: the name alone, then the plans (which replace the group's).
	if _, got := e.Do(e.Acc, "UpdatePlanGroup", params, nil, map[string]any{"name": "Another name"}); got["name"] != "Another name" || got["plans_count"] != 2.0 {
		t.Errorf("rename: %v", got)
	}
	if _, got := e.Do(e.Acc, "UpdatePlanGroup", params, nil, map[string]any{"plans": plans}); got["plans_count"] != 3.0 || got["name"] != "Another name" {
		t.Errorf("new plans: %v", got)
	}
	if status, got := e.Do(e.Acc, "UpdatePlanGroup", params, nil, map[string]any{"name": ""}); status != 422 {
		t.Errorf("blank name: %d %v", status, got)
	}

	// A deleted plan drops out of the group's plans.
	if status, _ := e.Do(e.Acc, "DeletePlan", map[string]string{"plan_uuid": plans[1]}, nil, nil); status != 204 {
		t.Fatal("delete plan")
	}
	_, page = e.Do(e.Acc, "ListPlanGroupPlans", params, nil, nil)
	if !reflect.DeepEqual(apitest.UUIDsOf(page["plans"]), []string{plans[0], plans[2]}) {
		t.Errorf("after deleting a plan: %v", page)
	}

	_, _ = e.Do(e.Acc, "CreatePlanGroup", nil, nil, map[string]any{"name": "Second", "plans": []string{plans[0]}})
	_, list := e.Do(e.Acc, "ListPlanGroups", nil, url.Values{"per_page": {"1"}}, nil)
	if !reflect.DeepEqual(apitest.KeysOf(list), []string{"current_page", "cursor", "has_more", "plan_groups", "total_pages"}) ||
		list["total_pages"] != 2.0 || list["plan_groups"].([]any)[0].(map[string]any)["name"] != "Second" {
		t.Errorf("groups, newest first: %v", list)
	}
	_, list = e.Do(e.Acc, "ListPlanGroups", nil, url.Values{"per_page": {"1"}, "page": {"2"}}, nil)
	if list["current_page"] != 2.0 || list["plan_groups"].([]any)[0].(map[string]any)["uuid"] != uuid[1] {
		t.Errorf("page=2: %v", list)
	}

	for _, op := range []struct {
		name   string
		status int
		do     func(account string) (int, map[string]any)
	}{
		{"get", 404, func(a string) (int, map[string]any) {
			return e.Do(a, "GetPlanGroup", params, nil, nil)
		}},
		{"plans", 404, func(a string) (int, map[string]any) {
			return e.Do(a, "ListPlanGroupPlans", params, nil, nil)
		}},
		{"patch", 404, func(a string) (int, map[string]any) {
			return e.Do(a, "UpdatePlanGroup", params, nil, map[string]any{"name": "x"})
		}},
		{"delete", 404, func(a string) (int, map[string]any) {
			return e.Do(a, "DeletePlanGroup", params, nil, nil)
		}},
	} {
		status, got := op.do(e.Other)
		if status != op.status {
			t.Errorf("%s by another account: %d %v", op.name, status, got)
		}
		apitest.AssertBody(t, got, familyB("Plan group not found", "plan_group_uuid"))
	}
	if _, theirs := e.Do(e.Other, "ListPlanGroups", nil, nil, nil); len(theirs["plan_groups"].([]any)) != 0 {
		t.Errorf("another account lists %v", theirs)
	}
	if status, _ := e.Do(e.Acc, "DeletePlanGroup", params, nil, nil); status != 204 {
		t.Errorf("delete: %d", status)
	}
	if status, _ := e.Do(e.Acc, "GetPlanGroup", params, nil, nil); status != 404 {
		t.Errorf("deleted group: %d", status)
	}
	if _, p := e.GetPlan(e.Acc, plans[0]); p["uuid"] != plans[0] {
		t.Errorf("a group's deletion removed its plan: %v", p)
	}
}
