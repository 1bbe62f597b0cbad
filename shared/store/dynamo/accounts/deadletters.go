package accounts

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type deadLetterNoteItem struct {
	MessageID string    `dynamodbav:"message_id"`
	Queue     string    `dynamodbav:"queue"`
	Error     string    `dynamodbav:"error"`
	At        time.Time `dynamodbav:"at"`
}

// NoteDeadLetter writes the note with UpdateItem (SET), which every worker's role
// already grants; the table's time to live removes it.
func (s *Store) NoteDeadLetter(ctx context.Context, n store.DeadLetterNote) error {
	at, err := attributevalue.Marshal(n.At.UTC())
	if err != nil {
		return err
	}
	_, err = s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                      table.KeyAttrs(keys.DeadLetterNote(n.AccountID, n.MessageID)),
		UpdateExpression:         aws.String("SET #et = :et, message_id = :id, #queue = :q, #error = :e, #at = :at, #exp = :exp"),
		ExpressionAttributeNames: map[string]string{"#et": keys.EntityType, "#exp": keys.ExpiresAt, "#queue": "queue", "#error": "error", "#at": "at"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":et": table.SAttr(keys.TypeDeadLetterNote), ":id": table.SAttr(n.MessageID), ":q": table.SAttr(n.Queue), ":e": table.SAttr(n.Error),
			":at": at, ":exp": table.NAttr(n.At.Add(store.DeadLetterNoteTTL).Unix()),
		},
	})
	return err
}

// DeadLetterNotes reads the notes with BatchGetItem, 100 keys a request.
func (s *Store) DeadLetterNotes(ctx context.Context, accountID string, messageIDs []string) (map[string]store.DeadLetterNote, error) {
	keyList := make([]map[string]types.AttributeValue, 0, len(messageIDs))
	seen := map[string]bool{}
	for _, id := range messageIDs {
		if !seen[id] {
			seen[id] = true
			keyList = append(keyList, table.KeyAttrs(keys.DeadLetterNote(accountID, id)))
		}
	}
	items, err := s.t.BatchGet(ctx, keyList)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.DeadLetterNote, len(items))
	for _, av := range items {
		var it deadLetterNoteItem
		if err := attributevalue.UnmarshalMap(av, &it); err != nil {
			return nil, err
		}
		out[it.MessageID] = store.DeadLetterNote{AccountID: accountID, MessageID: it.MessageID, Queue: it.Queue, Error: it.Error, At: it.At}
	}
	return out, nil
}

// ImportCustomerOutcome reads one customer's status item of an import (one GetItem).
func (s *Store) ImportCustomerOutcome(ctx context.Context, accountID, importID, customerExternalID string) (string, error) {
	var it struct {
		Status string `dynamodbav:"st"`
	}
	if err := s.t.Get(ctx, keys.ImportCustomer(accountID, importID, customerExternalID), &it); err != nil {
		return "", err
	}
	return it.Status, nil
}
