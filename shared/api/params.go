package api

import (
	"errors"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
	"github.com/subsight/subsight/shared/timefmt"
)

// TimeParam parses an optional ISO 8601 bound of the query string.
func TimeParam(r *apigw.Request, param string, upper bool) (time.Time, error) {
	return ActivityBound(param, r.Query(param), upper)
}

// ActivityBound parses an optional ISO 8601 bound of an activity filter; a date alone
// as an upper bound covers that whole day.
func ActivityBound(param, raw string, upper bool) (time.Time, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return time.Time{}, nil
	}
	t, err := timefmt.Parse(raw)
	if err != nil {
		return time.Time{}, apperr.BadRequest(param, "Invalid value for parameter %q: %q is not an ISO 8601 date or time", param, raw)
	}
	if upper && len(raw) == len(time.DateOnly) {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return t, nil
}

// SameTime tells whether two optional times are both absent or the same instant.
func SameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// DecodeObject reads a JSON object body (numbers kept as sent).
func DecodeObject(r *apigw.Request) (map[string]any, error) {
	var body map[string]any
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	if body == nil {
		body = map[string]any{}
	}
	return body, nil
}

// Text is an optional string field of a body: absent, null or a value.
type Text = optional.Value[string]

// Nullable is s, or nil (JSON null) when s is empty.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MaxNameLength bounds free-text names so an item can never approach DynamoDB's limit.
const MaxNameLength = 255

// ImportError turns the intake's client errors into 4xx.
func ImportError(err error) error {
	var fe *model.FieldError
	switch {
	case errors.As(err, &fe):
		if fe.Record == "" && fe.Message == "is required" {
			return apperr.MissingParam(fe.Field)
		}
		return apperr.Unprocessable(fe.Param(), "%s %s", fe.Param(), fe.Message)
	case errors.Is(err, imports.ErrImportExists):
		return apperr.Conflict("external_id", "An import with this external_id already exists in this data source")
	}
	return err
}

// Flag reads a boolean query parameter ("true"/"false", as both official clients send
// it; "1"/"0" too); absent is false.
func Flag(r *apigw.Request, name string) (bool, error) {
	switch strings.ToLower(r.Query(name)) {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, apperr.BadRequest(name, "%s must be true or false", name)
}
