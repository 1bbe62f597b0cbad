// Package apperr is the one error taxonomy of the service. Handlers return
// *Error values; the apigw package is the only place that turns them into HTTP
// responses, in the ChartMogul error family that the endpoint uses.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
)

// Family selects the JSON shape of an error body. ChartMogul is several services and
// each answers in its own shape (docs/api.md, "Error bodies").
type Family int

const (
	// FamilyDefault defers to the endpoint's family.
	FamilyDefault Family = iota
	// FamilyA is {"code":404,"message":"...","param":"..."} (customers, contacts, account, auth).
	FamilyA
	// FamilyB is {"error":"...","error_details":[{"param","code","message"}]} (invoices, plans, data sources).
	FamilyB
	// FamilyC is {"errors":{"field":"message"}} (legacy Rails-style validation).
	FamilyC
	// FamilyE is {"field":["message"],...,"error_details":[{"param","code","message"}]}
	// (plan groups' validation, as recorded).
	FamilyE
)

// Error is a client-facing error. Internal errors are plain Go errors and never reach
// the client's body.
type Error struct {
	Status  int
	Message string
	Param   string // empty renders as null in family A
	Code    string // family B detail code, e.g. "invalid", "blank"
	Family  Family
	Fields  map[string]string // family C field errors
	Details []Detail          // family E field errors, in order
}

// Detail is one field error of a family E body.
type Detail struct {
	Param   string `json:"param"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%d %s (param %s)", e.Status, e.Message, e.Param)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Message)
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// In returns a copy of e rendered in family f.
func (e *Error) In(f Family) *Error {
	c := *e
	c.Family = f
	return &c
}

func newErr(status int, param, format string, args ...any) *Error {
	return &Error{Status: status, Param: param, Message: fmt.Sprintf(format, args...)}
}

// BadRequest is a 400: a missing or malformed parameter.
func BadRequest(param, format string, args ...any) *Error {
	return newErr(http.StatusBadRequest, param, format, args...)
}

// Unprocessable is a 422: a well-formed request whose values break a rule.
func Unprocessable(param, format string, args ...any) *Error {
	return newErr(http.StatusUnprocessableEntity, param, format, args...)
}

// NotFound is a 404.
func NotFound(param, format string, args ...any) *Error {
	return newErr(http.StatusNotFound, param, format, args...)
}

// Conflict is a 422 for a uniqueness clash; ChartMogul reports those as semantic errors.
func Conflict(param, format string, args ...any) *Error {
	return newErr(http.StatusUnprocessableEntity, param, format, args...)
}

// TooLarge is a 413.
func TooLarge(format string, args ...any) *Error {
	return newErr(http.StatusRequestEntityTooLarge, "", format, args...)
}

// Unauthorized is the one 401 the service ever sends.
func Unauthorized() *Error {
	return &Error{Status: http.StatusUnauthorized, Message: "No valid API key provided", Family: FamilyA}
}

// MissingParam is ChartMogul's 400 for an absent required field.
func MissingParam(param string) *Error {
	return BadRequest(param, "Parameter %q is missing", param)
}

// FieldErrors is a family E 422 naming every failing field.
func FieldErrors(details ...Detail) *Error {
	e := &Error{Status: http.StatusUnprocessableEntity, Family: FamilyE, Details: details}
	if len(details) > 0 {
		e.Param, e.Code, e.Message = details[0].Param, details[0].Code, details[0].Message
	}
	return e
}

// Validation is a family C 422 with one message per field.
func Validation(fields map[string]string) *Error {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	msg := "Validation failed"
	if len(keys) > 0 {
		msg = keys[0] + ": " + fields[keys[0]]
	}
	return &Error{Status: http.StatusUnprocessableEntity, Message: msg, Family: FamilyC, Fields: fields}
}
