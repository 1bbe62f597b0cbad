package crm_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/model"
)

func TestCreateNote(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	status, raw := e.Raw(e.Acc, "CreateCustomerNote", nil, map[string]any{
		"customer_uuid": e.Customer, "type": "call", "text": "Called them", "call_duration": 90,
		"author_email": "ann.author@EXAMPLE.com", "created_at": "2023-12-15 12:28:15 +0300"})
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	var note map[string]any
	_ = json.Unmarshal([]byte(raw), &note)
	want := fmt.Sprintf(`{"uuid":%q,"customer_uuid":%q,"type":"call","text":"Called them","call_duration":90,"author":"Ann Author (Ann.Author@example.com)","created_at":"2023-12-15T09:28:15.000Z","updated_at":%q}`,
		note["uuid"], e.Customer, note["updated_at"])
	if raw != want {
		t.Errorf("body %s\nwant %s", raw, want)
	}

	defaults := []struct {
		name         string
		body         map[string]any
		wantDuration float64
		wantAuthor   any
	}{
		// Without author_email a note is the account's first team member's, never a null
		// author (a null made the Python client's CustomerNote.all raise).
		{"call without duration lasts 0", map[string]any{"type": "call"}, 0, "Ann Author (Ann.Author@example.com)"},
		{"a note never has a duration", map[string]any{"type": "note", "call_duration": 30}, 0, "Ann Author (Ann.Author@example.com)"},
		{"null author is the first member", map[string]any{"type": "note", "author_email": nil}, 0, "Ann Author (Ann.Author@example.com)"},
		{"author by e-mail", map[string]any{"type": "note", "author_email": e.Member.Email}, 0,
			"Ann Author (Ann.Author@example.com)"},
	}
	for _, tt := range defaults {
		t.Run(tt.name, func(t *testing.T) {
			tt.body["customer_uuid"] = e.Customer
			n := e.CreateNote(e.Acc, tt.body)
			if n["call_duration"] != tt.wantDuration || !reflect.DeepEqual(n["author"], tt.wantAuthor) {
				t.Errorf("%v", n)
			}
			if n["text"] != "" && tt.body["text"] == nil {
				t.Errorf("text %v", n["text"])
			}
		})
	}

	// An account without a team member: the key's own name, still a string.
	otherCustomer := e.NewCustomer(e.Other, e.OtherDS)
	if n := e.CreateNote(e.Other, map[string]any{"customer_uuid": otherCustomer, "type": "note"}); n["author"] != model.KeyAuthor {
		t.Errorf("author without a team member: %v", n["author"])
	}

	bare := strings.TrimPrefix(otherCustomer, "cus_")
	tests := []struct {
		name   string
		body   any
		status int
		want   map[string]any
	}{
		{"no customer", map[string]any{"type": "note"}, 400, apitest.FamilyA(400, `Parameter "customer_uuid" is missing`, "customer_uuid")},
		{"no type", map[string]any{"customer_uuid": e.Customer}, 400, apitest.FamilyA(400, `Parameter "type" is missing`, "type")},
		{"another account's customer", map[string]any{"customer_uuid": otherCustomer, "type": "note"}, 404,
			apitest.FamilyA(404, fmt.Sprintf("Customer %q does not exist", bare), "customer_id")},
		{"unknown customer", map[string]any{"customer_uuid": "cus_00000000-0000-7000-8000-000000000000", "type": "note"}, 404,
			apitest.FamilyA(404, `Customer "00000000-0000-7000-8000-000000000000" does not exist`, "customer_id")},
		{"bad type", map[string]any{"customer_uuid": e.Customer, "type": "email"}, 422,
			apitest.FamilyA(422, `The type must be either "note" or "call".`, "type")},
		{"unknown team member", map[string]any{"customer_uuid": e.Customer, "type": "note", "author_email": "nobody@example.com"}, 422,
			apitest.FamilyA(422, "The author_email must be the e-mail of a team member of the account.", "author_email")},
		{"malformed author", map[string]any{"customer_uuid": e.Customer, "type": "note", "author_email": 7}, 422,
			apitest.FamilyA(422, "The author_email must be the e-mail of a team member of the account.", "author_email")},
		{"negative duration", map[string]any{"customer_uuid": e.Customer, "type": "call", "call_duration": -1}, 422,
			apitest.FamilyA(422, "The call duration must be greater than or equal to 0.", "call_duration")},
		{"fractional duration", map[string]any{"customer_uuid": e.Customer, "type": "call", "call_duration": 1.5}, 422,
			apitest.FamilyA(422, "The call duration must be a whole number of seconds.", "call_duration")},
		{"bad created_at", map[string]any{"customer_uuid": e.Customer, "type": "note", "created_at": "yesterday"}, 422,
			apitest.FamilyA(422, "The created_at value must be an ISO 8601 timestamp.", "created_at")},
		{"text not a string", map[string]any{"customer_uuid": e.Customer, "type": "note", "text": []int{1}}, 422,
			apitest.FamilyA(422, "The text must be a string.", "text")},
		{"text too long", map[string]any{"customer_uuid": e.Customer, "type": "note", "text": strings.Repeat("t", 65536)}, 422,
			apitest.FamilyA(422, "The text is too long (maximum is 65535 characters).", "text")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := e.Do(e.Acc, "CreateCustomerNote", nil, nil, tt.body)
			if status != tt.status {
				t.Fatalf("status %d %v", status, got)
			}
			apitest.AssertBody(t, got, tt.want)
		})
	}
	// The refused creations stored nothing: the customer has exactly the notes above.
	_, list := e.Do(e.Acc, "ListCustomerNotes", nil, url.Values{"customer_uuid": {e.Customer}}, nil)
	if n := len(list["entries"].([]any)); n != 1+len(defaults) {
		t.Errorf("customer has %d notes, want %d", n, 1+len(defaults))
	}
}

func TestNoteNotFound(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	n := e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "note", "text": "mine"})
	uuid := n["uuid"].(string)
	bare := strings.TrimPrefix(uuid, "note_")
	params := map[string]string{"note_uuid": uuid}
	ops := []struct {
		name   string
		method string
		call   func(accountID string, params map[string]string) (int, map[string]any)
	}{
		{"get", "GET", func(a string, p map[string]string) (int, map[string]any) {
			return e.Do(a, "GetCustomerNote", p, nil, nil)
		}},
		{"patch", "PATCH", func(a string, p map[string]string) (int, map[string]any) {
			return e.Do(a, "UpdateCustomerNote", p, nil, map[string]any{"text": "stolen"})
		}},
		{"delete", "DELETE", func(a string, p map[string]string) (int, map[string]any) {
			return e.Do(a, "DeleteCustomerNote", p, nil, nil)
		}},
	}
	for _, op := range ops {
		t.Run(op.name+" with another account's key", func(t *testing.T) {
			status, got := op.call(e.Other, params)
			if status != 404 {
				t.Fatalf("status %d %v", status, got)
			}
			apitest.AssertBody(t, got, apitest.FamilyA(404, fmt.Sprintf("Note %q does not exist", bare), "note_uuid"))
			if _, now := e.GetNote(e.Acc, uuid); !reflect.DeepEqual(now, n) {
				t.Errorf("note changed: %v", now)
			}
		})
		t.Run(op.name+" unknown", func(t *testing.T) {
			status, got := op.call(e.Acc, map[string]string{"note_uuid": "note_00000000-0000-7000-8000-000000000000"})
			if status != 404 {
				t.Fatalf("status %d %v", status, got)
			}
			apitest.AssertBody(t, got, apitest.FamilyA(404, `Note "00000000-0000-7000-8000-000000000000" does not exist`, "note_uuid"))
		})
	}
}

func TestUpdateNote(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := base
	e.D.Now = func() time.Time { return clock }
	n := e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "call", "text": "first", "call_duration": 60})
	uuid := n["uuid"].(string)
	patch := func(body any) (int, map[string]any) {
		return e.Do(e.Acc, "UpdateCustomerNote", map[string]string{"note_uuid": uuid}, nil, body)
	}
	clock = base.Add(90 * time.Second)
	status, got := patch(map[string]any{"text": "updated", "author_email": e.Member.Email, "call_duration": 120,
		"type": "note", "updated_at": "2001-01-01T00:00:00Z"})
	if status != 200 {
		t.Fatalf("%d %v", status, got)
	}
	want := map[string]any{"uuid": uuid, "customer_uuid": e.Customer, "type": "call", "text": "updated",
		"call_duration": 120.0, "author": "Ann Author (Ann.Author@example.com)",
		"created_at": "2030-01-01T00:00:00.000Z", "updated_at": "2030-01-01T00:01:30.000Z"}
	apitest.AssertBody(t, got, want)

	refused := []struct {
		name  string
		body  any
		param string
		msg   string
	}{
		{"unknown team member", map[string]any{"author_email": "stranger@example.com", "text": "x"}, "author_email",
			"The author_email must be the e-mail of a team member of the account."},
		{"negative duration", map[string]any{"call_duration": -5}, "call_duration", "The call duration must be greater than or equal to 0."},
		{"bad created_at", map[string]any{"created_at": "2023-13-45"}, "created_at", "The created_at value must be an ISO 8601 timestamp."},
		{"text not a string", map[string]any{"text": 12}, "text", "The text must be a string."},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			clock = clock.Add(time.Minute)
			status, got := patch(tt.body)
			if status != 422 {
				t.Fatalf("status %d %v", status, got)
			}
			apitest.AssertBody(t, got, apitest.FamilyA(422, tt.msg, tt.param))
			if _, now := e.GetNote(e.Acc, uuid); !reflect.DeepEqual(now, want) {
				t.Errorf("note changed: %v", now)
			}
		})
	}

	t.Run("created_at moves the note in the listing", func(t *testing.T) {
		newer := e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "note"})
		status, got := patch(map[string]any{"created_at": "2031-06-01T10:00:00Z"})
		if status != 200 || got["created_at"] != "2031-06-01T10:00:00.000Z" {
			t.Fatalf("%d %v", status, got)
		}
		_, list := e.Do(e.Acc, "ListCustomerNotes", nil, url.Values{"customer_uuid": {e.Customer}}, nil)
		entries := list["entries"].([]any)
		if len(entries) != 2 || entries[0].(map[string]any)["uuid"] != uuid || entries[1].(map[string]any)["uuid"] != newer["uuid"] {
			t.Errorf("order %v", entries)
		}
	})
}

func TestDeleteNote(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	n := e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "note"})
	params := map[string]string{"note_uuid": n["uuid"].(string)}
	status, got := e.Do(e.Acc, "DeleteCustomerNote", params, nil, nil)
	if status != 200 || len(got) != 0 || got == nil {
		t.Fatalf("%d %v", status, got)
	}
	if status, _ := e.GetNote(e.Acc, params["note_uuid"]); status != 404 {
		t.Errorf("deleted note: %d", status)
	}
	if status, _ := e.Do(e.Acc, "DeleteCustomerNote", params, nil, nil); status != 404 {
		t.Errorf("second delete: %d", status)
	}
}

func TestNotesGoWithTheirCustomer(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	doomed := e.NewCustomer(e.Acc, e.DS)
	gone := e.CreateNote(e.Acc, map[string]any{"customer_uuid": doomed, "type": "note"})
	kept := e.CreateNote(e.Acc, map[string]any{"customer_uuid": e.Customer, "type": "note"})
	c, err := e.D.Store.GetCustomer(e.Ctx, e.Acc, doomed)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.D.Store.DeleteCustomer(e.Ctx, c); err != nil {
		t.Fatal(err)
	}
	if status, _ := e.GetNote(e.Acc, gone["uuid"].(string)); status != 404 {
		t.Errorf("note of a deleted customer: %d", status)
	}
	_, list := e.Do(e.Acc, "ListCustomerNotes", nil, nil, nil)
	entries := list["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["uuid"] != kept["uuid"] {
		t.Errorf("notes after the customer's deletion: %v", entries)
	}
}
