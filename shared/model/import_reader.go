package model

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/timefmt"
)

// FieldError names the first offending record and field of a request body.
type FieldError struct {
	Record  string // "invoices[3]", "" for a top-level field
	Field   string
	Message string
}

// Param is the field's path, e.g. "invoices[3].date".
func (e *FieldError) Param() string {
	if e.Record == "" {
		return e.Field
	}
	if e.Field == "" {
		return e.Record
	}
	return e.Record + "." + e.Field
}

func (e *FieldError) Error() string { return e.Param() + ": " + e.Message }

// record reads the fields of one JSON object of a request body (decoded with
// UseNumber), reporting the first problem with its record and field.
type record struct {
	name string
	m    map[string]any
	err  *FieldError
}

func newRecord(name string, v any) (*record, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &FieldError{Record: name, Message: "must be a JSON object"}
	}
	return &record{name: name, m: m}, nil
}

func (r *record) fail(field, format string, args ...any) {
	if r.err == nil {
		r.err = &FieldError{Record: r.name, Field: field, Message: fmt.Sprintf(format, args...)}
	}
}

// present reports whether field was sent with a non-null value.
func (r *record) present(field string) bool {
	v, ok := r.m[field]
	return ok && v != nil
}

// str reads a string field; required fields must be non-blank. Numbers are accepted
// as their text (ids are often numeric in billing systems).
func (r *record) str(field string, required bool, maxLen int) string {
	v, ok := r.m[field]
	if !ok || v == nil {
		if required {
			r.fail(field, "is required")
		}
		return ""
	}
	var s string
	switch x := v.(type) {
	case string:
		s = strings.TrimSpace(x)
	case json.Number:
		s = x.String()
	default:
		r.fail(field, "must be a string")
		return ""
	}
	if required && s == "" {
		r.fail(field, "is required")
	}
	if maxLen > 0 && len([]rune(s)) > maxLen {
		r.fail(field, "is too long (maximum is %d characters)", maxLen)
	}
	return s
}

// optStr is str for an optional field whose absence must stay visible.
func (r *record) optStr(field string, maxLen int) *string {
	if !r.present(field) {
		return nil
	}
	s := r.str(field, false, maxLen)
	return &s
}

// enum reads a string that must be one of allowed.
func (r *record) enum(field string, required bool, allowed ...string) string {
	s := r.str(field, required, 0)
	if s != "" && !slices.Contains(allowed, s) {
		r.fail(field, "must be one of %s", strings.Join(allowed, ", "))
	}
	return s
}

// Bounds of integer fields: amounts, quantities and orders are 32-bit signed integers.
const (
	MinInt32 = math.MinInt32
	MaxInt32 = math.MaxInt32
)

// integer reads a 32-bit integer (a JSON number or a numeric string). ok is false
// when the field is absent or broken (then an error is recorded if it was required
// or malformed).
func (r *record) integer(field string, required bool, lo, hi int64) (int64, bool) {
	v, ok := r.m[field]
	if !ok || v == nil {
		if required {
			r.fail(field, "is required")
		}
		return 0, false
	}
	var text string
	switch x := v.(type) {
	case json.Number:
		text = x.String()
	case string:
		text = strings.TrimSpace(x)
		if text == "" && !required {
			return 0, false
		}
	default:
		r.fail(field, "must be an integer")
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(text, 64)
		switch {
		case ferr != nil:
			r.fail(field, "must be an integer")
			return 0, false
		case f != math.Trunc(f):
			r.fail(field, "must be an integer")
			return 0, false
		case f < MinInt32 || f > MaxInt32:
			r.fail(field, "must be between %d and %d", lo, hi)
			return 0, false
		}
		n = int64(f)
	}
	if n < lo || n > hi {
		r.fail(field, "must be between %d and %d", lo, hi)
		return 0, false
	}
	return n, true
}

// optInt is integer for an optional field whose absence must stay visible.
func (r *record) optInt(field string, lo, hi int64) *int64 {
	n, ok := r.integer(field, false, lo, hi)
	if !ok {
		return nil
	}
	return &n
}

// boolean reads a JSON boolean (or "true"/"false"); absent is def.
func (r *record) boolean(field string, def bool) bool {
	v, ok := r.m[field]
	if !ok || v == nil {
		return def
	}
	switch x := v.(type) {
	case bool:
		return x
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			return b
		}
	}
	r.fail(field, "must be true or false")
	return def
}

// date reads an ISO 8601 timestamp; a value without a zone is UTC and a date alone
// is midnight UTC.
func (r *record) date(field string, required bool) *time.Time {
	s := r.str(field, required, 0)
	if s == "" {
		return nil
	}
	t, err := timefmt.Parse(s)
	if err != nil {
		r.fail(field, "%q is not a valid ISO 8601 date", s)
		return nil
	}
	if t.Year() < 1900 || t.Year() > 2999 {
		r.fail(field, "%q is out of range", s)
		return nil
	}
	return &t
}

// currency reads an ISO 4217 code.
func (r *record) currency(field string, required bool) string {
	s := strings.ToUpper(r.str(field, required, 0))
	if s != "" && !slices.Contains(Currencies, s) {
		r.fail(field, "%q is not an ISO 4217 currency code", s)
	}
	return s
}
