package crm

import (
	"context"
	"strings"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// ListNotes reads one page of notes, newest first (by created_at, then uuid): one
// customer's through GSI2, the account's through GSI1; type and author are filters.
func (s *Store) ListNotes(ctx context.Context, accountID string, f store.NoteFilter, limit int,
	start store.PageToken) (store.Page[model.Note], error) {
	q := recordListing(keys.Notes, accountID, f.CustomerUUID)
	q.WhereEqual("contact_uuid", f.ContactUUID)
	q.WhereEqual("type", f.Type)
	q.WhereEqual("author_key", strings.ToLower(f.AuthorEmail))
	return table.ListPage(ctx, s.t, q, limit, start, noteItem.note, nil)
}
