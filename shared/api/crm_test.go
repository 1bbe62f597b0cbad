package api_test

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
)

const (
	opportunitiesRoute = "/v1/opportunities"
	opportunityRoute   = "/v1/opportunities/{opportunity_uuid}"
	tasksRoute         = "/v1/tasks"
	taskRoute          = "/v1/tasks/{task_uuid}"
	entityNotesRoute   = "/v1/notes"
	entityNoteRoute    = "/v1/notes/{note_uuid}"
)

var bareUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// opportunityBody is the recorded create request (Ruby client, 2024) for a customer.
func (e *resourceEnv) opportunityBody(customer string) map[string]any {
	return map[string]any{"customer_uuid": customer, "owner": e.member.Email, "pipeline": "New Business",
		"pipeline_stage": "Discovery", "estimated_close_date": "2024-03-30", "currency": "USD", "amount_in_cents": 200000,
		"type": "one-time", "forecast_category": "best_case", "win_likelihood": 30,
		"custom": []any{map[string]any{"key": "from_campaign", "value": true}}}
}

func (e *resourceEnv) create(ep func(*api.Deps) apigw.Endpoint, route string, body map[string]any) map[string]any {
	e.t.Helper()
	status, got := e.do(e.acc, ep, "POST", route, nil, nil, body)
	if status != 201 {
		e.t.Fatalf("create %s: %d %v", route, status, got)
	}
	return got
}

// TestOpportunities: the recorded shapes (key order, custom an object, the date only),
// defaults, the team-member owner, updates, deletion with 200 {}, and isolation.
func TestOpportunities(t *testing.T) {
	e := newResourceEnv(t)
	clock := time.Date(2024, 3, 18, 17, 12, 39, 411000000, time.UTC)
	e.d.Now = func() time.Time { return clock }
	status, raw := e.raw(e.acc, api.CreateOpportunity, "POST", opportunitiesRoute, nil, e.opportunityBody(e.customer))
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	uuid := regexp.MustCompile(`"uuid":"([^"]+)"`).FindStringSubmatch(raw)[1]
	want := fmt.Sprintf(`{"uuid":%q,"customer_uuid":%q,"owner":"Ann.Author@example.com","pipeline":"New Business",`+
		`"pipeline_stage":"Discovery","estimated_close_date":"2024-03-30","currency":"USD","amount_in_cents":200000,`+
		`"type":"one-time","forecast_category":"best_case","win_likelihood":30,"custom":{"from_campaign":true},`+
		`"created_at":"2024-03-18T17:12:39.411Z","updated_at":"2024-03-18T17:12:39.411Z"}`, uuid, e.customer)
	if raw != want || !bareUUID.MatchString(uuid) {
		t.Errorf("created %s\nwant %s", raw, want)
	}
	params := map[string]string{"opportunity_uuid": uuid}
	if _, got := e.do(e.acc, api.GetOpportunity, "GET", opportunityRoute, params, nil, nil); got["uuid"] != uuid {
		t.Errorf("retrieve %v", got)
	}

	minimal := e.create(api.CreateOpportunity, opportunitiesRoute, map[string]any{"customer_uuid": e.customer,
		"owner": "ann.author@EXAMPLE.com", "pipeline": "New Business", "pipeline_stage": "Discovery",
		"estimated_close_date": "2024-04-21T10:00:00Z", "currency": "eur", "amount_in_cents": "5000"})
	assertBody(t, pick(minimal, "owner", "estimated_close_date", "currency", "amount_in_cents", "type", "forecast_category",
		"win_likelihood", "custom"), map[string]any{"owner": "Ann.Author@example.com", "estimated_close_date": "2024-04-21",
		"currency": "EUR", "amount_in_cents": 5000.0, "type": "recurring", "forecast_category": "pipeline",
		"win_likelihood": 0.0, "custom": map[string]any{}})

	// PATCH: the fields sent change, custom is merged, updated_at moves on.
	clock = clock.Add(time.Minute)
	status, got := e.do(e.acc, api.UpdateOpportunity, "PATCH", opportunityRoute, params, nil, map[string]any{
		"estimated_close_date": "2024-04-30", "amount_in_cents": 20000,
		"custom": []any{map[string]any{"key": "seats", "value": 4}}, "uuid": "ignored", "created_at": "ignored"})
	if status != 200 {
		t.Fatalf("patch %d %v", status, got)
	}
	assertBody(t, pick(got, "uuid", "estimated_close_date", "amount_in_cents", "custom", "created_at", "updated_at", "pipeline"),
		map[string]any{"uuid": uuid, "estimated_close_date": "2024-04-30", "amount_in_cents": 20000.0,
			"custom": map[string]any{"from_campaign": true, "seats": 4.0}, "created_at": "2024-03-18T17:12:39.411Z",
			"updated_at": "2024-03-18T17:13:39.411Z", "pipeline": "New Business"})

	refused := []struct {
		name   string
		body   map[string]any
		status int
		param  string
	}{
		{"no customer", dropKey(e.opportunityBody(e.customer), "customer_uuid"), 400, "customer_uuid"},
		{"no owner", dropKey(e.opportunityBody(e.customer), "owner"), 400, "owner"},
		{"no pipeline", dropKey(e.opportunityBody(e.customer), "pipeline"), 400, "pipeline"},
		{"owner not a team member", withKey(e.opportunityBody(e.customer), "owner", "stranger@example.com"), 422, "owner"},
		{"owner not an e-mail", withKey(e.opportunityBody(e.customer), "owner", "Ann"), 422, "owner"},
		{"bad type", withKey(e.opportunityBody(e.customer), "type", "forever"), 422, "type"},
		{"bad forecast", withKey(e.opportunityBody(e.customer), "forecast_category", "maybe"), 422, "forecast_category"},
		{"likelihood above 100", withKey(e.opportunityBody(e.customer), "win_likelihood", 101), 422, "win_likelihood"},
		{"negative amount", withKey(e.opportunityBody(e.customer), "amount_in_cents", -1), 422, "amount_in_cents"},
		{"bad currency", withKey(e.opportunityBody(e.customer), "currency", "XXX"), 422, "currency"},
		{"bad date", withKey(e.opportunityBody(e.customer), "estimated_close_date", "soon"), 422, "estimated_close_date"},
		{"custom not a list", withKey(e.opportunityBody(e.customer), "custom", "x"), 422, "custom"},
		{"custom object value", withKey(e.opportunityBody(e.customer), "custom", []any{map[string]any{"key": "k", "value": map[string]any{}}}), 422, "custom"},
		{"unknown customer", withKey(e.opportunityBody(e.customer), "customer_uuid", "cus_00000000-0000-7000-8000-000000000000"), 404, "customer_id"},
		{"another account's customer", e.opportunityBody(e.newCustomer(e.other, e.otherDS)), 404, "customer_id"},
	}
	for _, tt := range refused {
		status, got := e.do(e.acc, api.CreateOpportunity, "POST", opportunitiesRoute, nil, nil, tt.body)
		if status != tt.status || got["param"] != tt.param || got["code"] != float64(tt.status) {
			t.Errorf("%s: %d %v", tt.name, status, got)
		}
	}
	if status, got := e.do(e.acc, api.UpdateOpportunity, "PATCH", opportunityRoute, params, nil,
		map[string]any{"owner": "stranger@example.com"}); status != 422 || got["param"] != "owner" {
		t.Errorf("patch owner: %d %v", status, got)
	}

	// Another account's key: not found, nothing changed; the deletion answers 200 {}.
	for _, op := range []struct {
		ep     func(*api.Deps) apigw.Endpoint
		method string
	}{{api.GetOpportunity, "GET"}, {api.UpdateOpportunity, "PATCH"}, {api.DeleteOpportunity, "DELETE"}} {
		status, got := e.do(e.other, op.ep, op.method, opportunityRoute, params, nil, map[string]any{"pipeline": "stolen"})
		assertBody(t, got, familyA(404, fmt.Sprintf("Opportunity %q does not exist", uuid), "opportunity_uuid"))
		if status != 404 {
			t.Errorf("%s by another account: %d", op.method, status)
		}
	}
	if _, others := e.do(e.other, api.ListOpportunities, "GET", opportunitiesRoute, nil, nil, nil); len(others["entries"].([]any)) != 0 {
		t.Errorf("another account lists %v", others)
	}
	status, got = e.do(e.acc, api.DeleteOpportunity, "DELETE", opportunityRoute, params, nil, nil)
	if status != 200 || len(got) != 0 || got == nil {
		t.Errorf("delete: %d %v", status, got)
	}
	if status, _ := e.do(e.acc, api.GetOpportunity, "GET", opportunityRoute, params, nil, nil); status != 404 {
		t.Errorf("deleted opportunity: %d", status)
	}
}

// TestListOpportunities: newest first, every filter, cursor pages.
func TestListOpportunities(t *testing.T) {
	e := newResourceEnv(t)
	second := e.newCustomer(e.acc, e.ds)
	clock := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	e.d.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	var uuids []string
	for i, c := range []struct{ customer, stage, close string }{
		{e.customer, "Discovery", "2024-03-01"}, {e.customer, "Evaluation", "2024-04-01"}, {second, "Discovery", "2024-05-01"},
	} {
		b := e.opportunityBody(c.customer)
		b["pipeline_stage"], b["estimated_close_date"], b["pipeline"] = c.stage, c.close, fmt.Sprint("P", i%2)
		uuids = append(uuids, e.create(api.CreateOpportunity, opportunitiesRoute, b)["uuid"].(string))
	}
	tests := []struct {
		q    url.Values
		want []string
	}{
		{nil, []string{uuids[2], uuids[1], uuids[0]}},
		{url.Values{"customer_uuid": {e.customer}}, []string{uuids[1], uuids[0]}},
		{url.Values{"pipeline_stage": {"Discovery"}}, []string{uuids[2], uuids[0]}},
		{url.Values{"pipeline": {"P1"}}, []string{uuids[1]}},
		{url.Values{"owner": {"ANN.author@example.com"}}, []string{uuids[2], uuids[1], uuids[0]}},
		{url.Values{"owner": {"nobody@example.com"}}, nil},
		{url.Values{"estimated_close_date_on_or_after": {"2024-04-01"}}, []string{uuids[2], uuids[1]}},
		{url.Values{"estimated_close_date_on_or_before": {"2024-04-01"}, "customer_uuid": {e.customer}}, []string{uuids[1], uuids[0]}},
		{url.Values{"customer_uuid": {"cus_unknown"}}, nil},
	}
	for _, tt := range tests {
		status, body := e.do(e.acc, api.ListOpportunities, "GET", opportunitiesRoute, nil, tt.q, nil)
		if got := uuidsOrNil(body["entries"]); status != 200 || !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(keysOf(body), []string{"cursor", "entries", "has_more"}) {
			t.Errorf("%v: %d %v, want %v", tt.q, status, body, tt.want)
		}
	}
	var walked []string
	q := url.Values{"per_page": {"2"}}
	for range 3 {
		_, body := e.do(e.acc, api.ListOpportunities, "GET", opportunitiesRoute, nil, q, nil)
		walked = append(walked, uuidsOrNil(body["entries"])...)
		if body["has_more"] != true {
			break
		}
		q.Set("cursor", body["cursor"].(string))
	}
	if !reflect.DeepEqual(walked, tests[0].want) {
		t.Errorf("cursor walk %v", walked)
	}
	if status, body := e.do(e.acc, api.ListOpportunities, "GET", opportunitiesRoute, nil,
		url.Values{"estimated_close_date_on_or_after": {"later"}}, nil); status != 400 {
		t.Errorf("bad date filter: %d %v", status, body)
	}
}

// TestTasks: the recorded shape (task_uuid, due_date with milliseconds, completed_at
// null), a contact's tasks, the assignee as a team member, completing and reopening,
// the filters.
func TestTasks(t *testing.T) {
	e := newResourceEnv(t)
	clock := time.Date(2025, 4, 25, 2, 15, 6, 474000000, time.UTC)
	e.d.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	body := map[string]any{"customer_uuid": e.customer, "task_details": "This is some task details text.",
		"assignee": e.member.Email, "due_date": "2025-04-30T00:00:00.000Z"}
	status, raw := e.raw(e.acc, api.CreateTask, "POST", tasksRoute, nil, body)
	uuid := regexp.MustCompile(`"task_uuid":"([^"]+)"`).FindStringSubmatch(raw)[1]
	want := fmt.Sprintf(`{"task_uuid":%q,"customer_uuid":%q,"task_details":"This is some task details text.",`+
		`"assignee":"Ann.Author@example.com","due_date":"2025-04-30T00:00:00.000Z","completed_at":null,`+
		`"created_at":"2025-04-25T02:15:07.474Z","updated_at":"2025-04-25T02:15:07.474Z"}`, uuid, e.customer)
	if status != 201 || raw != want || !bareUUID.MatchString(uuid) {
		t.Errorf("created %d %s\nwant %s", status, raw, want)
	}
	params := map[string]string{"task_uuid": uuid}

	contact := e.createContact(map[string]any{"customer_uuid": e.customer, "data_source_uuid": e.ds.UUID, "email": "c@example.com"})
	viaContact := e.create(api.CreateTask, tasksRoute, map[string]any{"task_details": "Call back", "assignee": e.member.Email,
		"due_date": "2025-05-02", "completed_at": "2025-05-01T10:00:00Z", "associated_object_identifier": map[string]any{
			"associated_object": "contact", "method": "uuid", "value": contact["uuid"]}})
	assertBody(t, pick(viaContact, "customer_uuid", "associated_object", "associated_object_uuid", "due_date", "completed_at"),
		map[string]any{"customer_uuid": e.customer, "associated_object": "contact", "associated_object_uuid": contact["uuid"],
			"due_date": "2025-05-02T00:00:00.000Z", "completed_at": "2025-05-01T10:00:00.000Z"})

	// Complete the first task, then reopen it.
	status, got := e.do(e.acc, api.UpdateTask, "PATCH", taskRoute, params, nil, map[string]any{"completed_at": "2025-04-29"})
	if status != 200 || got["completed_at"] != "2025-04-29T00:00:00.000Z" || got["task_details"] != body["task_details"] {
		t.Fatalf("complete: %d %v", status, got)
	}
	listed := func(q url.Values) []string {
		t.Helper()
		status, b := e.do(e.acc, api.ListTasks, "GET", tasksRoute, nil, q, nil)
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
		"customer_uuid=" + e.customer:                           {second, uuid},
	} {
		v, _ := url.ParseQuery(q)
		if got := listed(v); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	status, got = e.do(e.acc, api.UpdateTask, "PATCH", taskRoute, params, nil, map[string]any{"completed_at": nil, "task_details": "Again"})
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
		{"unknown contact", map[string]any{"task_details": "x", "assignee": e.member.Email, "due_date": "2025-01-01",
			"associated_object_identifier": map[string]any{"associated_object": "contact", "method": "uuid", "value": "con_00000000-0000-7000-8000-000000000000"}}, 404, "contact_uuid"},
		{"bad association", map[string]any{"task_details": "x", "assignee": e.member.Email, "due_date": "2025-01-01",
			"associated_object_identifier": map[string]any{"associated_object": "deal", "method": "uuid", "value": "x"}}, 422, "associated_object_identifier"},
	}
	for _, tt := range refused {
		status, got := e.do(e.acc, api.CreateTask, "POST", tasksRoute, nil, nil, tt.body)
		if status != tt.status || got["param"] != tt.param {
			t.Errorf("%s: %d %v", tt.name, status, got)
		}
	}
	if status, got := e.do(e.acc, api.ListTasks, "GET", tasksRoute, nil, url.Values{"completed": {"yes"}}, nil); status != 400 || got["param"] != "completed" {
		t.Errorf("completed=yes: %d %v", status, got)
	}
	if status, _ := e.do(e.other, api.GetTask, "GET", taskRoute, params, nil, nil); status != 404 {
		t.Errorf("another account reads the task: %d", status)
	}
	if status, got := e.do(e.acc, api.DeleteTask, "DELETE", taskRoute, params, nil, nil); status != 200 || len(got) != 0 {
		t.Errorf("delete: %d %v", status, got)
	}
	if got := listed(nil); !reflect.DeepEqual(got, []string{second}) {
		t.Errorf("after delete %v", got)
	}
}

// TestEntityNotes: /v1/notes and /v1/customer_notes are one store; a note made for a
// contact names it in /v1/notes only, and contact_uuid lists a contact's notes.
func TestEntityNotes(t *testing.T) {
	e := newResourceEnv(t)
	contact := e.createContact(map[string]any{"customer_uuid": e.customer, "data_source_uuid": e.ds.UUID, "email": "n@example.com"})
	forContact := e.create(api.CreateNote, entityNotesRoute, map[string]any{"type": "call", "text": "Called",
		"associated_object_identifier": map[string]any{"associated_object": "contact", "method": "uuid", "value": contact["uuid"]}})
	forCustomer := e.create(api.CreateNote, entityNotesRoute, map[string]any{"customer_uuid": e.customer, "type": "note"})
	old := e.createNote(e.acc, map[string]any{"customer_uuid": e.customer, "type": "note", "text": "older route"})

	if !reflect.DeepEqual(keysOf(forContact), []string{"associated_object", "associated_object_uuid", "author", "call_duration",
		"created_at", "customer_uuid", "text", "type", "updated_at", "uuid"}) || forContact["associated_object_uuid"] != contact["uuid"] ||
		forContact["customer_uuid"] != e.customer || forContact["author"] != "Ann Author (Ann.Author@example.com)" {
		t.Errorf("contact's note %v", forContact)
	}
	if _, has := forCustomer["associated_object"]; has {
		t.Errorf("customer's note names an associated object: %v", forCustomer)
	}
	// Read through the other route: the same note, in that route's shape.
	params := map[string]string{"note_uuid": forContact["uuid"].(string)}
	_, viaOld := e.do(e.acc, api.GetCustomerNote, "GET", noteRoute, params, nil, nil)
	if _, has := viaOld["associated_object"]; has || viaOld["text"] != "Called" {
		t.Errorf("through /v1/customer_notes: %v", viaOld)
	}
	_, viaNew := e.do(e.acc, api.GetNote, "GET", entityNoteRoute, map[string]string{"note_uuid": old["uuid"].(string)}, nil, nil)
	if viaNew["text"] != "older route" {
		t.Errorf("through /v1/notes: %v", viaNew)
	}
	_, list := e.do(e.acc, api.ListNotes, "GET", entityNotesRoute, nil, url.Values{"contact_uuid": {contact["uuid"].(string)}}, nil)
	if got := uuidsOrNil(list["entries"]); !reflect.DeepEqual(got, []string{forContact["uuid"].(string)}) {
		t.Errorf("the contact's notes %v", got)
	}
	_, list = e.do(e.acc, api.ListNotes, "GET", entityNotesRoute, nil, url.Values{"customer_uuid": {e.customer}}, nil)
	if len(list["entries"].([]any)) != 3 {
		t.Errorf("the customer's notes %v", list)
	}
	_, list = e.do(e.acc, api.ListCustomerNotes, "GET", notesRoute, nil, url.Values{"contact_uuid": {contact["uuid"].(string)}}, nil)
	if got := uuidsOrNil(list["entries"]); !reflect.DeepEqual(got, []string{forContact["uuid"].(string)}) {
		t.Errorf("the contact's notes through /v1/customer_notes %v", got)
	}
	status, got := e.do(e.acc, api.UpdateNote, "PATCH", entityNoteRoute, params, nil, map[string]any{"text": "Called twice"})
	if status != 200 || got["associated_object_uuid"] != contact["uuid"] || got["text"] != "Called twice" {
		t.Errorf("patch %d %v", status, got)
	}
	if status, got := e.do(e.other, api.DeleteNote, "DELETE", entityNoteRoute, params, nil, nil); status != 404 {
		t.Errorf("another account deletes: %d %v", status, got)
	}
	if status, got := e.do(e.acc, api.DeleteNote, "DELETE", entityNoteRoute, params, nil, nil); status != 200 || len(got) != 0 {
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
