package crm_test

import (
	"net/http"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// TestUnchangedPatchIsNotModified sends what chartmogul-go v5 (main, tasks.go UpdateTask
// and entity_notes.go UpdateEntityNote) sends: PATCH tasks/:uuid or notes/:uuid with only
// the fields it sets (omitempty). A PATCH that changes nothing is 304 with no body and no
// Content-Type, and leaves updated_at; one that changes something is 200 with the record;
// /v1/customer_notes, which ChartMogul answers as before, stays 200.
func TestUnchangedPatchIsNotModified(t *testing.T) {
	e := apitest.NewResourceEnv(t)
	task := e.Create("CreateTask", map[string]any{"customer_uuid": e.Customer,
		"task_details": "This is some task details text.", "assignee": e.Member.Email, "due_date": "2025-04-30T00:00:00Z"})
	note := e.Create("CreateNote", map[string]any{"customer_uuid": e.Customer, "type": "note",
		"text": "This is a note"})
	tests := []struct {
		name   string
		op     string
		params map[string]string
		same   map[string]any
		change map[string]any
		key    string
	}{
		{"task", "UpdateTask", map[string]string{"task_uuid": task["task_uuid"].(string)},
			map[string]any{"task_details": "This is some task details text."},
			map[string]any{"task_details": "This is some other task details text."}, "task_details"},
		{"note", "UpdateNote", map[string]string{"note_uuid": note["uuid"].(string)},
			map[string]any{"text": "This is a note"}, map[string]any{"text": "This is a new note"}, "text"},
	}
	for _, tt := range tests {
		resp := apitest.Raw(t, e.D, tt.op, apigwtest.Call{PathParams: tt.params, Body: tt.same, AccountID: e.Acc})
		if resp.StatusCode != http.StatusNotModified || resp.Body != "" || resp.Headers["Content-Type"] != "" {
			t.Errorf("%s unchanged: %d %q %v, want 304 without a body", tt.name, resp.StatusCode, resp.Body, resp.Headers)
		}
		status, got := e.Do(e.Acc, tt.op, tt.params, nil, tt.change)
		if status != http.StatusOK || got[tt.key] != tt.change[tt.key] {
			t.Errorf("%s changed: %d %v", tt.name, status, got)
		}
	}
	status, got := e.Do(e.Acc, "UpdateCustomerNote",
		map[string]string{"note_uuid": note["uuid"].(string)}, nil, map[string]any{"text": "This is a new note"})
	if status != http.StatusOK || got["text"] != "This is a new note" {
		t.Errorf("UpdateCustomerNote unchanged: %d %v, want 200 with the note", status, got)
	}
}
