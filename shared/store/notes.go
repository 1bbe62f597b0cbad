package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/timefmt"
)

// ErrCustomerNotFound: the customer a note is written for does not exist.
var ErrCustomerNotFound = errors.New("customer not found")

// The note item lives in its customer's partition (keys.Note); see docs/data-model.md.
type noteItem struct {
	PK           string    `dynamodbav:"PK"`
	SK           string    `dynamodbav:"SK"`
	ET           string    `dynamodbav:"et"`
	GSI1PK       string    `dynamodbav:"GSI1PK"`
	GSI1SK       string    `dynamodbav:"GSI1SK"`
	GSI2PK       string    `dynamodbav:"GSI2PK"`
	GSI2SK       string    `dynamodbav:"GSI2SK"`
	AccountID    string    `dynamodbav:"account_id"`
	UUID         string    `dynamodbav:"uuid"`
	CustomerUUID string    `dynamodbav:"customer_uuid"`
	ContactUUID  string    `dynamodbav:"contact_uuid,omitempty"`
	Type         string    `dynamodbav:"type"`
	Text         string    `dynamodbav:"text"`
	CallDuration int       `dynamodbav:"call_duration"`
	AuthorEmail  string    `dynamodbav:"author_email,omitempty"`
	AuthorName   string    `dynamodbav:"author_name,omitempty"`
	AuthorKey    string    `dynamodbav:"author_key,omitempty"` // lower-case e-mail, for the filter
	CreatedAt    time.Time `dynamodbav:"created_at"`
	UpdatedAt    time.Time `dynamodbav:"updated_at"`
}

func (it noteItem) note() model.Note {
	return model.Note{RecordMeta: model.RecordMeta{AccountID: it.AccountID, UUID: it.UUID, CustomerUUID: it.CustomerUUID,
		ContactUUID: it.ContactUUID, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}, Type: it.Type,
		Text: it.Text, CallDuration: it.CallDuration, AuthorEmail: it.AuthorEmail, AuthorName: it.AuthorName}
}

func newNoteItem(n model.Note) noteItem {
	k := keys.Note(n.AccountID, n.CustomerUUID, n.UUID)
	order := noteOrder(n)
	return noteItem{PK: k.PK, SK: k.SK, ET: keys.TypeNote,
		GSI1PK: keys.NotesByAccount(n.AccountID), GSI1SK: order,
		GSI2PK: keys.NotesByCustomer(n.AccountID, n.CustomerUUID), GSI2SK: order,
		AccountID: n.AccountID, UUID: n.UUID, CustomerUUID: n.CustomerUUID, ContactUUID: n.ContactUUID, Type: n.Type, Text: n.Text,
		CallDuration: n.CallDuration, AuthorEmail: n.AuthorEmail, AuthorName: n.AuthorName,
		AuthorKey: strings.ToLower(n.AuthorEmail), CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
}

// noteOrder is the notes' index sort key; the fixed-width timestamp sorts as text.
func noteOrder(n model.Note) string {
	return keys.NoteOrder(timefmt.Nanos(n.CreatedAt), n.UUID)
}

// noteLocatorItem maps a note uuid to its customer.
type noteLocatorItem struct {
	PK           string `dynamodbav:"PK"`
	SK           string `dynamodbav:"SK"`
	ET           string `dynamodbav:"et"`
	CustomerUUID string `dynamodbav:"customer_uuid"`
}

// CreateNote stores a note and its locator, in one transaction that checks the
// customer exists. ErrCustomerNotFound when it does not.
func (s *Store) CreateNote(ctx context.Context, n model.Note) error {
	note, err := attributevalue.MarshalMap(newNoteItem(n))
	if err != nil {
		return err
	}
	loc := keys.NoteLocator(n.AccountID, n.UUID)
	locator, err := attributevalue.MarshalMap(noteLocatorItem{PK: loc.PK, SK: loc.SK, ET: keys.TypeNoteLocator,
		CustomerUUID: n.CustomerUUID})
	if err != nil {
		return err
	}
	isNew := aws.String("attribute_not_exists(PK)")
	err = s.transactWrite(ctx, []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: &s.table,
			Key:                 keyAttrs(keys.Customer(n.AccountID, n.CustomerUUID)),
			ConditionExpression: aws.String("attribute_exists(PK)")}},
		{Put: &types.Put{TableName: &s.table, Item: note, ConditionExpression: isNew}},
		{Put: &types.Put{TableName: &s.table, Item: locator, ConditionExpression: isNew}},
	})
	switch failedAt(err) {
	case -1:
		return err
	case 0:
		return ErrCustomerNotFound
	default:
		return ErrConflict
	}
}

// GetNote reads a note by uuid: the locator, then the note (consistent reads). A
// deleted customer leaves locators behind; their notes are gone, so ErrNotFound.
func (s *Store) GetNote(ctx context.Context, accountID, noteUUID string) (model.Note, error) {
	var loc noteLocatorItem
	if err := s.get(ctx, keys.NoteLocator(accountID, noteUUID), &loc); err != nil {
		return model.Note{}, err
	}
	var it noteItem
	if err := s.get(ctx, keys.Note(accountID, loc.CustomerUUID, noteUUID), &it); err != nil {
		return model.Note{}, err
	}
	return it.note(), nil
}

// UpdateNote writes the changed fields of a note read earlier (n holds the new
// values); ErrNotFound when it was deleted meanwhile. It returns the stored note.
func (s *Store) UpdateNote(ctx context.Context, n model.Note) (model.Note, error) {
	it := newNoteItem(n)
	vals, err := attributevalue.MarshalMap(map[string]any{
		":text": it.Text, ":dur": it.CallDuration, ":created": it.CreatedAt, ":updated": it.UpdatedAt,
		":o1": it.GSI1SK, ":o2": it.GSI2SK,
	})
	if err != nil {
		return model.Note{}, err
	}
	set := "#text = :text, call_duration = :dur, created_at = :created, updated_at = :updated, " +
		"GSI1SK = :o1, GSI2SK = :o2"
	if it.AuthorEmail != "" {
		set += ", author_email = :ae, author_name = :an, author_key = :ak"
		vals[":ae"], vals[":an"], vals[":ak"] = sAttr(it.AuthorEmail), sAttr(it.AuthorName), sAttr(it.AuthorKey)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       keyAttrs(keys.Note(n.AccountID, n.CustomerUUID, n.UUID)),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		UpdateExpression:          aws.String("SET " + set),
		ExpressionAttributeNames:  map[string]string{"#text": "text"},
		ExpressionAttributeValues: vals,
		ReturnValues:              types.ReturnValueAllNew,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return model.Note{}, notFoundOnCondition(err)
	}
	var stored noteItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &stored); err != nil {
		return model.Note{}, err
	}
	return stored.note(), nil
}

// DeleteNote removes a note and its locator; ErrNotFound when already gone.
func (s *Store) DeleteNote(ctx context.Context, n model.Note) error {
	err := s.transactWrite(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: &s.table, Key: keyAttrs(keys.Note(n.AccountID, n.CustomerUUID, n.UUID)),
			ConditionExpression: aws.String("attribute_exists(PK)")}},
		{Delete: &types.Delete{TableName: &s.table, Key: keyAttrs(keys.NoteLocator(n.AccountID, n.UUID))}},
	})
	if failedAt(err) >= 0 {
		return ErrNotFound
	}
	return err
}
