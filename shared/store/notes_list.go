package store

import (
	"context"
	"strings"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// NoteFilter narrows a note listing; empty fields do not filter. A contact's notes are
// read from its customer's (CustomerUUID must be the contact's customer).
type NoteFilter struct {
	CustomerUUID string
	ContactUUID  string
	Type         string
	AuthorEmail  string
}

// ListNotes reads one page of notes, newest first (by created_at, then uuid): one
// customer's through GSI2, the account's through GSI1; type and author are filters.
func (s *Store) ListNotes(ctx context.Context, accountID string, f NoteFilter, limit int,
	start PageToken) (Page[model.Note], error) {
	q := recordListing(keys.Notes, accountID, f.CustomerUUID)
	q.whereEqual("contact_uuid", f.ContactUUID)
	q.whereEqual("type", f.Type)
	q.whereEqual("author_key", strings.ToLower(f.AuthorEmail))
	return listPage(ctx, s, q, limit, start, noteItem.note, nil)
}
