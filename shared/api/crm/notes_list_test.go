package crm_test

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/model"
)

func TestListNotes(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	second := e.NewCustomer(e.Acc, e.DS2)
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	// A second team member: notes without author_email would be Ann's, the first one.
	bob := model.Member{AccountID: e.Acc, Email: "bob@example.com", Name: "Bob"}
	if err := e.D.Store.PutMember(e.Ctx, bob); err != nil {
		t.Fatal(err)
	}
	var first, calls, byAnn, all []string
	// Oldest first here; listings answer newest first.
	for i := range 9 {
		body := map[string]any{"customer_uuid": e.Customer, "type": "note",
			"created_at": base.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)}
		if i%3 == 0 {
			body["type"], body["call_duration"] = "call", 30
		}
		if i%2 == 0 {
			body["author_email"] = e.Member.Email
		} else {
			body["author_email"] = bob.Email
		}
		cus := e.Customer
		if i >= 6 {
			cus = second
		}
		body["customer_uuid"] = cus
		uuid := e.CreateNote(e.Acc, body)["uuid"].(string)
		all = append([]string{uuid}, all...)
		if cus == e.Customer {
			first = append([]string{uuid}, first...)
		}
		if body["type"] == "call" {
			calls = append([]string{uuid}, calls...)
		}
		if i%2 == 0 {
			byAnn = append([]string{uuid}, byAnn...)
		}
	}
	otherCustomer := e.NewCustomer(e.Other, e.OtherDS)
	e.CreateNote(e.Other, map[string]any{"customer_uuid": otherCustomer, "type": "note"})

	tests := []struct {
		name  string
		query url.Values
		want  []string
		sizes []int
	}{
		{"account, newest first", url.Values{"per_page": {"4"}}, all, []int{4, 4, 1}},
		{"customer", url.Values{"customer_uuid": {e.Customer}, "per_page": {"2"}}, first, []int{2, 2, 2}},
		{"type", url.Values{"type": {"call"}, "per_page": {"2"}}, calls, []int{2, 1}},
		{"author, any case", url.Values{"author_email": {"ANN.author@example.com"}, "per_page": {"3"}}, byAnn, []int{3, 2}},
		{"customer and type", url.Values{"customer_uuid": {e.Customer}, "type": {"note"}}, without(first, calls), []int{4}},
		{"another account's customer", url.Values{"customer_uuid": {otherCustomer}}, nil, []int{0}},
		{"malformed customer", url.Values{"customer_uuid": {"cus_x#NOTES"}}, nil, []int{0}},
		{"unknown author", url.Values{"author_email": {"nobody@example.com"}}, nil, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sizes := e.NotePages(tt.query)
			if len(got) != len(tt.want) || (len(got) > 0 && !reflect.DeepEqual(got, tt.want)) {
				t.Errorf("uuids\n got %v\nwant %v", got, tt.want)
			}
			if !reflect.DeepEqual(sizes, tt.sizes) {
				t.Errorf("sizes %v, want %v", sizes, tt.sizes)
			}
		})
	}

	t.Run("another account sees only its own", func(t *testing.T) {
		_, body := e.ListNotes(e.Other, nil)
		if n := len(body["entries"].([]any)); n != 1 {
			t.Errorf("%d notes", n)
		}
	})

	_, page := e.ListNotes(e.Acc, url.Values{"per_page": {"2"}})
	cursor := page["cursor"].(string)
	for _, tt := range []struct {
		name    string
		account string
		query   url.Values
	}{
		{"tampered", e.Acc, url.Values{"cursor": {apitest.Tamper(cursor)}}},
		{"another account's key", e.Other, url.Values{"cursor": {cursor}}},
		{"another filter", e.Acc, url.Values{"cursor": {cursor}, "type": {"call"}}},
	} {
		t.Run("cursor "+tt.name, func(t *testing.T) {
			status, body := e.ListNotes(tt.account, tt.query)
			if status != 400 {
				t.Fatalf("status %d %v", status, body)
			}
			apitest.AssertBody(t, body, apitest.FamilyA(400, "Invalid cursor", "cursor"))
		})
	}
	t.Run("bad type filter", func(t *testing.T) {
		status, body := e.ListNotes(e.Acc, url.Values{"type": {"email"}})
		if status != 400 {
			t.Fatalf("status %d %v", status, body)
		}
		apitest.AssertBody(t, body, apitest.FamilyA(400, fmt.Sprintf("Invalid value for parameter \"type\": %q", "email"), "type"))
	})
}

func without(list, drop []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}
