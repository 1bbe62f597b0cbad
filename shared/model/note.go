package model

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/ids"
)

// Note types.
const (
	NoteTypeNote = "note"
	NoteTypeCall = "call"
)

// MaxNoteTextLength bounds a note's text (characters) so that an item, stored once
// with its index copies, stays far below DynamoDB's 400 KB item limit.
const MaxNoteTextLength = 65535

// MaxCallDuration bounds call_duration (seconds; a year is plenty).
const MaxCallDuration = 366 * 24 * 3600

// Note is a customer note or call log.
type Note struct {
	AccountID    string
	UUID         string
	CustomerUUID string
	Type         string
	Text         string
	// CallDuration is in seconds; always 0 for a note.
	CallDuration int
	// AuthorEmail and AuthorName are the team member's, copied when set; both empty
	// when no author was ever given.
	AuthorEmail string
	AuthorName  string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// NewNoteUUID returns a new note_ id.
func NewNoteUUID() string { return ids.New(ids.Note) }

// ValidNoteType reports whether t is note or call.
func ValidNoteType(t string) bool { return t == NoteTypeNote || t == NoteTypeCall }

// Author renders ChartMogul's "Display Name (email)"; nil when the note has no author.
func (n Note) Author() *string {
	if n.AuthorEmail == "" {
		return nil
	}
	s := n.AuthorName + " (" + n.AuthorEmail + ")"
	return &s
}

// Normalize keeps a note's invariants: a plain note has no call duration.
func (n *Note) Normalize() {
	if n.Type != NoteTypeCall {
		n.CallDuration = 0
	}
}

// ParseCallDuration reads call_duration (whole seconds, >= 0) from a decoded JSON value.
func ParseCallDuration(v any) (int, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(x), 64); err != nil {
			return 0, errors.New("must be a whole number of seconds")
		}
	default:
		return 0, errors.New("must be a whole number of seconds")
	}
	switch {
	case f != math.Trunc(f):
		return 0, errors.New("must be a whole number of seconds")
	case f < 0:
		return 0, errors.New("must be greater than or equal to 0")
	case f > MaxCallDuration:
		return 0, errors.New("must be at most " + strconv.Itoa(MaxCallDuration) + " seconds")
	}
	return int(f), nil
}
