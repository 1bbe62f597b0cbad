package store

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// NoteFilter narrows a note listing; empty fields do not filter.
type NoteFilter struct {
	CustomerUUID string
	Type         string
	AuthorEmail  string
}

// NotePage is one page of notes, newest first.
type NotePage struct {
	Notes   []model.Note
	LastKey map[string]types.AttributeValue
	HasMore bool
}

// ListNotes reads one page of notes, newest first (by created_at, then uuid): one
// customer's through GSI2, the account's through GSI1; type and author are filters.
func (s *Store) ListNotes(ctx context.Context, accountID string, f NoteFilter, limit int,
	start map[string]types.AttributeValue) (NotePage, error) {
	vals := map[string]types.AttributeValue{}
	names := map[string]string{}
	in := &dynamodb.QueryInput{ScanIndexForward: aws.Bool(false)}
	var keyNames []string
	if f.CustomerUUID != "" {
		in.IndexName = aws.String(keys.GSI2)
		in.KeyConditionExpression = aws.String("GSI2PK = :pk")
		vals[":pk"] = sAttr(keys.NotesByCustomer(accountID, f.CustomerUUID))
		keyNames = []string{keys.PK, keys.SK, keys.GSI2PK, keys.GSI2SK}
	} else {
		in.IndexName = aws.String(keys.GSI1)
		in.KeyConditionExpression = aws.String("GSI1PK = :pk")
		vals[":pk"] = sAttr(keys.NotesByAccount(accountID))
		keyNames = []string{keys.PK, keys.SK, keys.GSI1PK, keys.GSI1SK}
	}
	var filters []string
	if f.Type != "" {
		filters = append(filters, "#type = :type")
		names["#type"] = "type"
		vals[":type"] = sAttr(f.Type)
	}
	if f.AuthorEmail != "" {
		filters = append(filters, "author_key = :author")
		vals[":author"] = sAttr(strings.ToLower(f.AuthorEmail))
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	in.ExpressionAttributeValues = vals
	page, err := s.queryKeyPage(ctx, in, keyNames, limit, start)
	if err != nil {
		return NotePage{}, err
	}
	var items []noteItem
	if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
		return NotePage{}, err
	}
	out := NotePage{Notes: make([]model.Note, len(items)), LastKey: page.LastKey, HasMore: page.HasMore}
	for i, it := range items {
		out.Notes[i] = it.note()
	}
	return out, nil
}
