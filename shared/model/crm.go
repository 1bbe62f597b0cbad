package model

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Opportunities and tasks: a customer's CRM records (/v1/opportunities, /v1/tasks).
// Their owner and assignee are team members' e-mails, checked against the account's
// members by the API.

// Opportunity types and forecast categories.
var (
	OpportunityTypes   = []string{"recurring", "one-time"}
	ForecastCategories = []string{"pipeline", "best_case", "committed", "omitted", "won", "lost"}
)

// Defaults of the opportunity fields a create may leave out (the object always shows
// them: clients read them as strings and an integer, never null).
const (
	DefaultOpportunityType     = "recurring"
	DefaultForecastCategory    = "pipeline"
	MaxCRMTextLength           = 255
	MaxTaskDetailsLength       = 255
	MaxOpportunityCustomFields = 100
)

// RecordMeta is what every CRM record has: its account, uuid (a bare UUID for
// opportunities and tasks, as ChartMogul's), customer, the contact it is about (when it
// was created for one) and its times.
type RecordMeta struct {
	AccountID    string
	UUID         string
	CustomerUUID string
	ContactUUID  string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Meta gives the generic CRM operations a record's common fields.
func (m *RecordMeta) Meta() *RecordMeta { return m }

// Opportunity is a sales opportunity of a customer.
type Opportunity struct {
	RecordMeta
	Owner         string // a team member's e-mail
	Pipeline      string
	PipelineStage string
	// EstimatedCloseDate is a civil date, held at midnight UTC.
	EstimatedCloseDate time.Time
	Currency           string
	AmountInCents      int64
	Type               string
	ForecastCategory   string
	WinLikelihood      int
	// Custom holds the custom attributes in the order they were first set.
	Custom []CustomField
}

// CustomField is one free-form custom attribute of an opportunity: a key and a JSON
// scalar (string, number as sent, boolean or null).
type CustomField struct {
	Key   string `json:"k"`
	Value any    `json:"v"`
}

// ReadOpportunity applies the fields of a create (create: the required ones must be
// there) or update body, decoded with UseNumber, to o. customer_uuid and the owner's
// membership are the caller's. custom is a list of {key, value} (as ChartMogul takes
// it) or an object, merged into the attributes o has.
func ReadOpportunity(body map[string]any, o *Opportunity, create bool) error {
	r := &record{m: body}
	if r.present("owner") || create {
		o.Owner = r.email("owner", true)
	}
	for field, dst := range map[string]*string{"pipeline": &o.Pipeline, "pipeline_stage": &o.PipelineStage} {
		if r.present(field) || create {
			*dst = r.str(field, true, MaxCRMTextLength)
		}
	}
	if r.present("estimated_close_date") || create {
		if t := r.date("estimated_close_date", true); t != nil {
			o.EstimatedCloseDate = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		}
	}
	if r.present("currency") || create {
		o.Currency = r.currency("currency", true)
	}
	if n, ok := r.integer("amount_in_cents", create, 0, 1<<53); ok {
		o.AmountInCents = n
	}
	if r.present("type") {
		o.Type = r.enum("type", true, OpportunityTypes...)
	} else if create {
		o.Type = DefaultOpportunityType
	}
	if r.present("forecast_category") {
		o.ForecastCategory = r.enum("forecast_category", true, ForecastCategories...)
	} else if create {
		o.ForecastCategory = DefaultForecastCategory
	}
	if n, ok := r.integer("win_likelihood", false, 0, 100); ok {
		o.WinLikelihood = int(n)
	}
	if r.present("custom") {
		o.Custom = r.customFields("custom", o.Custom)
	}
	if r.err != nil {
		return r.err
	}
	return nil
}

// customFields merges a custom attribute list ([{key, value}]) or object into have.
func (r *record) customFields(field string, have []CustomField) []CustomField {
	out := slices.Clone(have)
	set := func(key string, v any) {
		key = strings.TrimSpace(key)
		switch v.(type) {
		case nil, string, bool, json.Number:
		default:
			r.fail(field, "values must be strings, numbers, booleans or null")
			return
		}
		if key == "" || len(key) > MaxCRMTextLength {
			r.fail(field, "keys must be 1 to %d characters", MaxCRMTextLength)
			return
		}
		if i := slices.IndexFunc(out, func(c CustomField) bool { return c.Key == key }); i >= 0 {
			out[i].Value = v
			return
		}
		out = append(out, CustomField{Key: key, Value: v})
	}
	switch x := r.m[field].(type) {
	case []any:
		for _, item := range x {
			kv, ok := item.(map[string]any)
			key, isString := kv["key"].(string)
			if !ok || !isString {
				r.fail(field, "must be a list of {\"key\", \"value\"} objects")
				return have
			}
			set(key, kv["value"])
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			set(k, x[k])
		}
	default:
		r.fail(field, "must be a list of {\"key\", \"value\"} objects")
		return have
	}
	if len(out) > MaxOpportunityCustomFields {
		r.fail(field, "holds at most %d attributes", MaxOpportunityCustomFields)
	}
	return out
}

// email reads a field holding an e-mail address.
func (r *record) email(field string, required bool) string {
	s := r.str(field, required, MaxCRMTextLength)
	if s != "" && !ValidEmail(s) {
		r.fail(field, "%q is not an e-mail address", s)
	}
	return s
}

// Task is a task of a customer, possibly about one of its contacts (shown with its
// uuid as task_uuid).
type Task struct {
	RecordMeta
	TaskDetails string
	Assignee    string // a team member's e-mail
	DueDate     time.Time
	CompletedAt *time.Time
}

// ReadTask applies the fields of a create (create: the required ones must be there)
// or update body, decoded with UseNumber, to t. completed_at: null reopens the task.
func ReadTask(body map[string]any, t *Task, create bool) error {
	r := &record{m: body}
	if r.present("task_details") || create {
		t.TaskDetails = r.str("task_details", true, MaxTaskDetailsLength)
	}
	if r.present("assignee") || create {
		t.Assignee = r.email("assignee", true)
	}
	if r.present("due_date") || create {
		if d := r.date("due_date", true); d != nil {
			t.DueDate = d.UTC()
		}
	}
	if v, sent := body["completed_at"]; sent {
		t.CompletedAt = nil
		if v != nil {
			t.CompletedAt = r.date("completed_at", false)
		}
	}
	if r.err != nil {
		return r.err
	}
	return nil
}
