package dynamo

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ListNotes reads one page of notes, newest first (by created_at, then uuid): one
// customer's through GSI2, the account's through GSI1; type and author are filters.
func (s *Store) ListNotes(ctx context.Context, accountID string, f store.NoteFilter, limit int,
	start store.PageToken) (store.Page[model.Note], error) {
	q := indexListing(keys.GSI1, keys.NotesByAccount(accountID), false)
	if f.CustomerUUID != "" {
		q = indexListing(keys.GSI2, keys.NotesByCustomer(accountID, f.CustomerUUID), false)
	}
	if f.Type != "" {
		q.where("#type = :type", map[string]string{"#type": "type"}, map[string]types.AttributeValue{":type": sAttr(f.Type)})
	}
	if f.AuthorEmail != "" {
		q.where("author_key = :author", nil, map[string]types.AttributeValue{":author": sAttr(strings.ToLower(f.AuthorEmail))})
	}
	return listPage(ctx, s, q, limit, start, noteItem.note, nil)
}
