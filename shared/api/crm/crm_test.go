package crm_test

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
)

var bareUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestOpportunities: the recorded shapes (key order, custom an object, the date only),
// defaults, the team-member owner, updates, deletion with 200 {}, and isolation.
func TestOpportunities(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	clock := time.Date(2024, 3, 18, 17, 12, 39, 411000000, time.UTC)
	e.D.Now = func() time.Time { return clock }
	status, raw := e.Raw(e.Acc, "CreateOpportunity", nil, e.OpportunityBody(e.Customer))
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	uuid := regexp.MustCompile(`"uuid":"([^"]+)"`).FindStringSubmatch(raw)[1]
	want := fmt.Sprintf(`{"uuid":%q,"customer_uuid":%q,"owner":"Ann.Author@example.com","pipeline":"New Business",`+
		`"pipeline_stage":"Discovery","estimated_close_date":"2024-03-30","currency":"USD","amount_in_cents":200000,`+
		`"type":"one-time","forecast_category":"best_case","win_likelihood":30,"custom":{"from_campaign":true},`+
		`"created_at":"2024-03-18T17:12:39.411Z","updated_at":"2024-03-18T17:12:39.411Z"}`, uuid, e.Customer)
	if raw != want || !bareUUID.MatchString(uuid) {
		t.Errorf("created %s\nwant %s", raw, want)
	}
	params := map[string]string{"opportunity_uuid": uuid}
	if _, got := e.Do(e.Acc, "GetOpportunity", params, nil, nil); got["uuid"] != uuid {
		t.Errorf("retrieve %v", got)
	}

	minimal := e.Create("CreateOpportunity", map[string]any{"customer_uuid": e.Customer,
		"owner": "ann.author@EXAMPLE.com", "pipeline": "New Business", "pipeline_stage": "Discovery",
		"estimated_close_date": "2024-04-21T10:00:00Z", "currency": "eur", "amount_in_cents": "5000"})
	apitest.AssertBody(t, pick(minimal, "owner", "estimated_close_date", "currency", "amount_in_cents", "type", "forecast_category",
		"win_likelihood", "custom"), map[string]any{"owner": "Ann.Author@example.com", "estimated_close_date": "2024-04-21",
		"currency": "EUR", "amount_in_cents": 5000.0, "type": "recurring", "forecast_category": "pipeline",
		"win_likelihood": 0.0, "custom": map[string]any{}})

	// PATCH: the fields sent change, custom is merged, updated_at moves on.
	clock = clock.Add(time.Minute)
	status, got := e.Do(e.Acc, "UpdateOpportunity", params, nil, map[string]any{
		"estimated_close_date": "2024-04-30", "amount_in_cents": 20000,
		"custom": []any{map[string]any{"key": "seats", "value": 4}}, "uuid": "ignored", "created_at": "ignored"})
	if status != 200 {
		t.Fatalf("patch %d %v", status, got)
	}
	apitest.AssertBody(t, pick(got, "uuid", "estimated_close_date", "amount_in_cents", "custom", "created_at", "updated_at", "pipeline"),
		map[string]any{"uuid": uuid, "estimated_close_date": "2024-04-30", "amount_in_cents": 20000.0,
			"custom": map[string]any{"from_campaign": true, "seats": 4.0}, "created_at": "2024-03-18T17:12:39.411Z",
			"updated_at": "2024-03-18T17:13:39.411Z", "pipeline": "New Business"})

	refused := []struct {
		name   string
		body   map[string]any
		status int
		param  string
	}{
		{"no customer", dropKey(e.OpportunityBody(e.Customer), "customer_uuid"), 400, "customer_uuid"},
		{"no owner", dropKey(e.OpportunityBody(e.Customer), "owner"), 400, "owner"},
		{"no pipeline", dropKey(e.OpportunityBody(e.Customer), "pipeline"), 400, "pipeline"},
		{"owner not a team member", withKey(e.OpportunityBody(e.Customer), "owner", "stranger@example.com"), 422, "owner"},
		{"owner not an e-mail", withKey(e.OpportunityBody(e.Customer), "owner", "Ann"), 422, "owner"},
		{"bad type", withKey(e.OpportunityBody(e.Customer), "type", "forever"), 422, "type"},
		{"bad forecast", withKey(e.OpportunityBody(e.Customer), "forecast_category", "maybe"), 422, "forecast_category"},
		{"likelihood above 100", withKey(e.OpportunityBody(e.Customer), "win_likelihood", 101), 422, "win_likelihood"},
		{"negative amount", withKey(e.OpportunityBody(e.Customer), "amount_in_cents", -1), 422, "amount_in_cents"},
		{"bad currency", withKey(e.OpportunityBody(e.Customer), "currency", "XXX"), 422, "currency"},
		{"bad date", withKey(e.OpportunityBody(e.Customer), "estimated_close_date", "soon"), 422, "estimated_close_date"},
		{"custom not a list", withKey(e.OpportunityBody(e.Customer), "custom", "x"), 422, "custom"},
		{"custom object value", withKey(e.OpportunityBody(e.Customer), "custom", []any{map[string]any{"key": "k", "value": map[string]any{}}}), 422, "custom"},
		{"unknown customer", withKey(e.OpportunityBody(e.Customer), "customer_uuid", "cus_00000000-0000-7000-8000-000000000000"), 404, "customer_id"},
		{"another account's customer", e.OpportunityBody(e.NewCustomer(e.Other, e.OtherDS)), 404, "customer_id"},
	}
	for _, tt := range refused {
		status, got := e.Do(e.Acc, "CreateOpportunity", nil, nil, tt.body)
		if status != tt.status || got["param"] != tt.param || got["code"] != float64(tt.status) {
			t.Errorf("%s: %d %v", tt.name, status, got)
		}
	}
	if status, got := e.Do(e.Acc, "UpdateOpportunity", params, nil,
		map[string]any{"owner": "stranger@example.com"}); status != 422 || got["param"] != "owner" {
		t.Errorf("patch owner: %d %v", status, got)
	}

	// Another account's key: not found, nothing changed; the deletion answers 200 {}.
	for _, op := range []string{"GetOpportunity", "UpdateOpportunity", "DeleteOpportunity"} {
		status, got := e.Do(e.Other, op, params, nil, map[string]any{"pipeline": "stolen"})
		apitest.AssertBody(t, got, apitest.FamilyA(404, fmt.Sprintf("Opportunity %q does not exist", uuid), "opportunity_uuid"))
		if status != 404 {
			t.Errorf("%s by another account: %d", op, status)
		}
	}
	if _, others := e.Do(e.Other, "ListOpportunities", nil, nil, nil); len(others["entries"].([]any)) != 0 {
		t.Errorf("another account lists %v", others)
	}
	status, got = e.Do(e.Acc, "DeleteOpportunity", params, nil, nil)
	if status != 200 || len(got) != 0 || got == nil {
		t.Errorf("delete: %d %v", status, got)
	}
	if status, _ := e.Do(e.Acc, "GetOpportunity", params, nil, nil); status != 404 {
		t.Errorf("deleted opportunity: %d", status)
	}
}

// TestListOpportunities: newest first, every filter, cursor pages.
func TestListOpportunities(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	second := e.NewCustomer(e.Acc, e.DS)
	clock := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	e.D.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	var uuids []string
	for i, c := range []struct{ customer, stage, close string }{
		{e.Customer, "Discovery", "2024-03-01"}, {e.Customer, "Evaluation", "2024-04-01"}, {second, "Discovery", "2024-05-01"},
	} {
		b := e.OpportunityBody(c.customer)
		b["pipeline_stage"], b["estimated_close_date"], b["pipeline"] = c.stage, c.close, fmt.Sprint("P", i%2)
		uuids = append(uuids, e.Create("CreateOpportunity", b)["uuid"].(string))
	}
	tests := []struct {
		q    url.Values
		want []string
	}{
		{nil, []string{uuids[2], uuids[1], uuids[0]}},
		{url.Values{"customer_uuid": {e.Customer}}, []string{uuids[1], uuids[0]}},
		{url.Values{"pipeline_stage": {"Discovery"}}, []string{uuids[2], uuids[0]}},
		{url.Values{"pipeline": {"P1"}}, []string{uuids[1]}},
		{url.Values{"owner": {"ANN.author@example.com"}}, []string{uuids[2], uuids[1], uuids[0]}},
		{url.Values{"owner": {"nobody@example.com"}}, nil},
		{url.Values{"estimated_close_date_on_or_after": {"2024-04-01"}}, []string{uuids[2], uuids[1]}},
		{url.Values{"estimated_close_date_on_or_before": {"2024-04-01"}, "customer_uuid": {e.Customer}}, []string{uuids[1], uuids[0]}},
		{url.Values{"customer_uuid": {"cus_unknown"}}, nil},
	}
	for _, tt := range tests {
		status, body := e.Do(e.Acc, "ListOpportunities", nil, tt.q, nil)
		if got := uuidsOrNil(body["entries"]); status != 200 || !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(apitest.KeysOf(body), []string{"cursor", "entries", "has_more"}) {
			t.Errorf("%v: %d %v, want %v", tt.q, status, body, tt.want)
		}
	}
	var walked []string
	q := url.Values{"per_page": {"2"}}
	for range 3 {
		_, body := e.Do(e.Acc, "ListOpportunities", nil, q, nil)
		walked = append(walked, uuidsOrNil(body["entries"])...)
		if body["has_more"] != true {
			break
		}
		q.Set("cursor", body["cursor"].(string))
	}
	if !reflect.DeepEqual(walked, tests[0].want) {
		t.Errorf("cursor walk %v", walked)
	}
	if status, body := e.Do(e.Acc, "ListOpportunities", nil,
		url.Values{"estimated_close_date_on_or_after": {"later"}}, nil); status != 400 {
		t.Errorf("bad date filter: %d %v", status, body)
	}
}

// TestTasks: the recorded shape (task_uuid, due_date with milliseconds, completed_at
// null), a contact's tasks, the assignee as a team member, completing and reopening,
// the filters.
func TestTasks(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	clock := time.Date(2025, 4, 25, 2, 15, 6, 474000000, time.UTC)
	e.D.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	body := map[string]any{"customer_uuid": e.Customer, "task_details": "This is some task details text.",
		"assignee": e.Member.Email, "due_date": "2025-04-30T00:00:00.000Z"}
	status, raw := e.Raw(e.Acc, "CreateTask", nil, body)
	uuid := regexp.MustCompile(`"task_uuid":"([^"]+)"`).FindStringSubmatch(raw)[1]
	want := fmt.Sprintf(`{"task_uuid":%q,"customer_uuid":%q,"task_details":"This is some task details text.",`+
		`"assignee":"Ann.Author@example.com","due_date":"2025-04-30T00:00:00.000Z","completed_at":null,`+
		`"created_at":"2025-04-25T02:15:07.474Z","updated_at":"2025-04-25T02:15:07.474Z"}`, uuid, e.Customer)
	if status != 201 || raw != want || !bareUUID.MatchString(uuid) {
		t.Errorf("created %d %s\nwant %s", status, raw, want)
	}
	params := map[string]string{"task_uuid": uuid}

	contact := e.CreateContact(map[string]any{"customer_uuid": e.Customer, "data_source_uuid": e.DS.UUID, "email": "c@example.com"})
	viaContact := e.Create("CreateTask", map[string]any{"task_details": "Call back", "assignee": e.Member.Email,
		"due_date": "2025-05-02", "completed_at": "2025-05-01T10:00:00Z", "associated_object_identifier": map[string]any{
			"associated_object": "contact", "method": "uuid", "value": contact["uuid"]}})
	apitest.AssertBody(t, pick(viaContact, "customer_uuid", "associated_object", "associated_object_uuid", "due_date", "completed_at"),
		map[string]any{"customer_uuid": e.Customer, "associated_object": "contact", "associated_object_uuid": contact["uuid"],
			"due_date": "2025-05-02T00:00:00.000Z", "completed_at": "2025-05-01T10:00:00.000Z"})

	// Complete the first task, then reopen it.
	status, got := e.Do(e.Acc, "UpdateTask", params, nil, map[string]any{"completed_at": "2025-04-29"})
	if status != 200 || got["completed_at"] != "2025-04-29T00:00:00.000Z" || got["task_details"] != body["task_details"] {
		t.Fatalf("complete: %d %v", status, got)
	}
	listed := func(q url.Values) []string {
		t.Helper()
		status, b := e.Do(e.Acc, "ListTasks", nil, q, nil)
		if status != 200 {
			t.Fatalf("%v: %d %v", q, status, b)
		}
		var out []string
		for _, x := range b["entries"].([]any) {
			out = append(out, x.(map[string]any)["task_uuid"].(string))
		}
		return out
	}
	second := viaContact["task_uuid"].(string)
	for q, want := range map[string][]string{
		"":                {second, uuid},
		"completed=true":  {second, uuid},
		"completed=false": nil,
		"contact_uuid=" + contact["uuid"].(string):              {second},
		"contact_uuid=con_00000000-0000-7000-8000-000000000000": nil,
		"due_date_on_or_before=2025-04-30":                      {uuid},
		"due_date_on_or_after=2025-05-01":                       {second},
		"assignee=ANN.AUTHOR@example.com":                       {second, uuid},
		"customer_uuid=" + e.Customer:                           {second, uuid},
	} {
		v, _ := url.ParseQuery(q)
		if got := listed(v); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	status, got = e.Do(e.Acc, "UpdateTask", params, nil, map[string]any{"completed_at": nil, "task_details": "Again"})
	if status != 200 || got["completed_at"] != nil || got["task_details"] != "Again" {
		t.Fatalf("reopen: %d %v", status, got)
	}
	if got := listed(url.Values{"completed": {"false"}}); !reflect.DeepEqual(got, []string{uuid}) {
		t.Errorf("open tasks %v", got)
	}

	refused := []struct {
		name   string
		body   map[string]any
		status int
		param  string
	}{
		{"no details", dropKey(body, "task_details"), 400, "task_details"},
		{"no due date", dropKey(body, "due_date"), 400, "due_date"},
		{"details too long", withKey(body, "task_details", strings.Repeat("x", 256)), 422, "task_details"},
		{"assignee not a team member", withKey(body, "assignee", "stranger@example.com"), 422, "assignee"},
		{"bad completed_at", withKey(body, "completed_at", "done"), 422, "completed_at"},
		{"unknown contact", map[string]any{"task_details": "x", "assignee": e.Member.Email, "due_date": "2025-01-01",
			"associated_object_identifier": map[string]any{"associated_object": "contact", "method": "uuid", "value": "con_00000000-0000-7000-8000-000000000000"}}, 404, "contact_uuid"},
		{"bad association", map[string]any{"task_details": "x", "assignee": e.Member.Email, "due_date": "2025-01-01",
			"associated_object_identifier": map[string]any{"associated_object": "deal", "method": "uuid", "value": "x"}}, 422, "associated_object_identifier"},
	}
	for _, tt := range refused {
		status, got := e.Do(e.Acc, "CreateTask", nil, nil, tt.body)
		if status != tt.status || got["param"] != tt.param {
			t.Errorf("%s: %d %v", tt.name, status, got)
		}
	}
	if status, got := e.Do(e.Acc, "ListTasks", nil, url.Values{"completed": {"yes"}}, nil); status != 400 || got["param"] != "completed" {
		t.Errorf("completed=yes: %d %v", status, got)
	}
	if status, _ := e.Do(e.Other, "GetTask", params, nil, nil); status != 404 {
		t.Errorf("another account reads the task: %d", status)
	}
	if status, got := e.Do(e.Acc, "DeleteTask", params, nil, nil); status != 200 || len(got) != 0 {
		t.Errorf("delete: %d %v", status, got)
	}
	if got := listed(nil); !reflect.DeepEqual(got, []string{second}) {
		t.Errorf("after delete %v", got)
	}
}

// TestEntityNotes: /v1/notes and /v1/customer_notes are one store; a note made for a
// contact names it in /v1/notes only, and contact_uuid lists a contact's notes.
func TestEntityNotes(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	contact := e.CreateContact(map[string]any{"customer_uuid": e.Customer, "data_source_uuid": e.DS.UUID, "email": "n@example.com"})
	forContact := e.Create("CreateNote", map[string]any{"type": "call", "text": "Called",
		"associated_object_identifier": map[string]any{"associated_object": "contact", "method": "uuid", "value": contact["uuid"]}})
	forCustomer := e.Create("CreateNote", map[string]any{"customer_uuid": e.Customer, "type": "note"})
	old := e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "note", "text": "older route"})

	if !reflect.DeepEqual(apitest.KeysOf(forContact), []string{"associated_object", "associated_object_uuid", "author", "call_duration",
		"created_at", "customer_uuid", "text", "type", "updated_at", "uuid"}) || forContact["associated_object_uuid"] != contact["uuid"] ||
		forContact["customer_uuid"] != e.Customer || forContact["author"] != "Ann Author (Ann.Author@example.com)" {
		t.Errorf("contact's note %v", forContact)
	}
	if _, has := forCustomer["associated_object"]; has {
		t.Errorf("customer's note names an associated object: %v", forCustomer)
	}
	// Read through the other route: the same note, in that route's shape.
	params := map[string]string{"note_uuid": forContact["uuid"].(string)}
	_, viaOld := e.Do(e.Acc, "GetCustomerNote", params, nil, nil)
	if _, has := viaOld["associated_object"]; has || viaOld["text"] != "Called" {
		t.Errorf("through /v1/customer_notes: %v", viaOld)
	}
	_, viaNew := e.Do(e.Acc, "GetNote", map[string]string{"note_uuid": old["uuid"].(string)}, nil, nil)
	if viaNew["text"] != "older route" {
		t.Errorf("through /v1/notes: %v", viaNew)
	}
	_, list := e.Do(e.Acc, "ListNotes", nil, url.Values{"contact_uuid": {contact["uuid"].(string)}}, nil)
	if got := uuidsOrNil(list["entries"]); !reflect.DeepEqual(got, []string{forContact["uuid"].(string)}) {
		t.Errorf("the contact's notes %v", got)
	}
	_, list = e.Do(e.Acc, "ListNotes", nil, url.Values{"customer_uuid": {e.Customer}}, nil)
	if len(list["entries"].([]any)) != 3 {
		t.Errorf("the customer's notes %v", list)
	}
	_, list = e.Do(e.Acc, "ListCustomerNotes", nil, url.Values{"contact_uuid": {contact["uuid"].(string)}}, nil)
	if got := uuidsOrNil(list["entries"]); !reflect.DeepEqual(got, []string{forContact["uuid"].(string)}) {
		t.Errorf("the contact's notes through /v1/customer_notes %v", got)
	}
	status, got := e.Do(e.Acc, "UpdateNote", params, nil, map[string]any{"text": "Called twice"})
	if status != 200 || got["associated_object_uuid"] != contact["uuid"] || got["text"] != "Called twice" {
		t.Errorf("patch %d %v", status, got)
	}
	if status, got := e.Do(e.Other, "DeleteNote", params, nil, nil); status != 404 {
		t.Errorf("another account deletes: %d %v", status, got)
	}
	if status, got := e.Do(e.Acc, "DeleteNote", params, nil, nil); status != 200 || len(got) != 0 {
		t.Errorf("delete %d %v", status, got)
	}
}

func uuidsOrNil(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any)["uuid"].(string))
	}
	return out
}

func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

func withKey(m map[string]any, k string, v any) map[string]any {
	out := dropKey(m, k)
	out[k] = v
	return out
}

func dropKey(m map[string]any, k string) map[string]any {
	out := map[string]any{}
	for kk, v := range m {
		if kk != k {
			out[kk] = v
		}
	}
	return out
}
