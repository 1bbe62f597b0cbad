package model

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
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

// Note is a note or call log of a customer, possibly about one of its contacts (the
// same object for /v1/customer_notes and /v1/notes).
type Note struct {
	RecordMeta
	Type string
	Text string
	// CallDuration is in seconds; always 0 for a note.
	CallDuration int
	// AuthorEmail and AuthorName are the team member's, copied when the note is
	// created (author_email, else the account's first team member) or re-attributed;
	// both empty when the account had no team member then.
	AuthorEmail string
	AuthorName  string
}

// ValidNoteType reports whether t is note or call.
func ValidNoteType(t string) bool { return t == NoteTypeNote || t == NoteTypeCall }

// KeyAuthor is the author of a note written through the API by an account without a
// team member. ChartMogul names the API key's user; a Subsight key belongs to no user,
// and clients read author as a string, never null.
const KeyAuthor = "API key"

// Author renders ChartMogul's "Display Name (email)", or KeyAuthor.
func (n Note) Author() string {
	if n.AuthorEmail == "" {
		return KeyAuthor
	}
	return n.AuthorName + " (" + n.AuthorEmail + ")"
}

// FirstMember is the team member a note without author_email is attributed to: the
// earliest added (by e-mail when added at the same instant); false when there is none.
func FirstMember(members []Member) (Member, bool) {
	if len(members) == 0 {
		return Member{}, false
	}
	first := members[0]
	for _, m := range members[1:] {
		if m.CreatedAt.Before(first.CreatedAt) || (m.CreatedAt.Equal(first.CreatedAt) && m.Email < first.Email) {
			first = m
		}
	}
	return first, true
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
