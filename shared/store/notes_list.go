package store

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	q := indexListing(keys.GSI1, keys.NotesByAccount(accountID), false)
	if f.CustomerUUID != "" {
		q = indexListing(keys.GSI2, keys.NotesByCustomer(accountID, f.CustomerUUID), false)
	}
	q.whereEqual("contact_uuid", f.ContactUUID)
	if f.Type != "" {
		q.where("#type = :type", map[string]string{"#type": "type"}, map[string]types.AttributeValue{":type": sAttr(f.Type)})
	}
	if f.AuthorEmail != "" {
		q.where("author_key = :author", nil, map[string]types.AttributeValue{":author": sAttr(strings.ToLower(f.AuthorEmail))})
	}
	return listPage(ctx, s, q, limit, start, noteItem.note, nil)
}
