package crm

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type contactItem struct {
	PK                 string                   `dynamodbav:"PK"`
	SK                 string                   `dynamodbav:"SK"`
	ET                 string                   `dynamodbav:"et"`
	GSI1PK             string                   `dynamodbav:"GSI1PK"`
	GSI1SK             string                   `dynamodbav:"GSI1SK"`
	GSI2PK             string                   `dynamodbav:"GSI2PK"`
	GSI2SK             string                   `dynamodbav:"GSI2SK"`
	AccountID          string                   `dynamodbav:"account_id"`
	UUID               string                   `dynamodbav:"uuid"`
	CustomerUUID       string                   `dynamodbav:"customer_uuid"`
	CustomerExternalID string                   `dynamodbav:"customer_external_id"`
	DataSourceUUID     string                   `dynamodbav:"data_source_uuid"`
	ExternalID         *string                  `dynamodbav:"external_id"`
	Position           int                      `dynamodbav:"position"`
	FirstName          *string                  `dynamodbav:"first_name"`
	LastName           *string                  `dynamodbav:"last_name"`
	Title              *string                  `dynamodbav:"title"`
	Email              *string                  `dynamodbav:"email"`
	EmailLower         string                   `dynamodbav:"email_lower,omitempty"`
	Phone              *string                  `dynamodbav:"phone"`
	LinkedIn           *string                  `dynamodbav:"linked_in"`
	Twitter            *string                  `dynamodbav:"twitter"`
	Notes              *string                  `dynamodbav:"notes"`
	Custom             map[string]attrValueItem `dynamodbav:"custom"`
	LastSeen           *time.Time               `dynamodbav:"last_seen,omitempty"`
	CreatedAt          time.Time                `dynamodbav:"created_at"`
	UpdatedAt          time.Time                `dynamodbav:"updated_at"`
	Version            int64                    `dynamodbav:"version"`
}

func newContactItem(c model.Contact) contactItem {
	k := keys.Contact(c.AccountID, c.UUID)
	return contactItem{PK: k.PK, SK: k.SK, ET: keys.TypeContact,
		GSI1PK: keys.ContactList(c.AccountID), GSI1SK: c.UUID,
		GSI2PK: keys.CustomerContacts(c.AccountID, c.CustomerUUID), GSI2SK: c.UUID,
		AccountID: c.AccountID, UUID: c.UUID, CustomerUUID: c.CustomerUUID,
		CustomerExternalID: c.CustomerExternalID, DataSourceUUID: c.DataSourceUUID,
		ExternalID: c.ExternalID, Position: c.Position, FirstName: c.FirstName, LastName: c.LastName,
		Title: c.Title, Email: c.Email, EmailLower: strings.ToLower(c.EmailValue()), Phone: c.Phone,
		LinkedIn: c.LinkedIn, Twitter: c.Twitter, Notes: c.Notes, Custom: attrItems(c.Custom),
		LastSeen: c.LastSeen, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, Version: c.Version}
}

func (it contactItem) contact() model.Contact {
	return model.Contact{AccountID: it.AccountID, UUID: it.UUID, CustomerUUID: it.CustomerUUID,
		CustomerExternalID: it.CustomerExternalID, DataSourceUUID: it.DataSourceUUID,
		ExternalID: it.ExternalID, Position: it.Position, FirstName: it.FirstName, LastName: it.LastName,
		Title: it.Title, Email: it.Email, Phone: it.Phone, LinkedIn: it.LinkedIn, Twitter: it.Twitter,
		Notes: it.Notes, Custom: attrValues(it.Custom), LastSeen: it.LastSeen, CreatedAt: it.CreatedAt,
		UpdatedAt: it.UpdatedAt, Version: it.Version}
}

func contactEmailItem(c model.Contact) UniqueItem {
	k := keys.ContactEmail(c.AccountID, c.CustomerUUID, c.EmailValue())
	return UniqueItem{PK: k.PK, SK: k.SK, ET: keys.TypeContactEmail,
		GSI2PK: keys.ContactsByEmail(c.AccountID, c.EmailValue()), GSI2SK: c.UUID,
		CustomerUUID: c.CustomerUUID, ContactUUID: c.UUID}
}

// putEmail reserves c's e-mail in its customer, unless c already holds it.
func (s *Store) putEmail(c model.Contact) (types.TransactWriteItem, error) {
	av, err := attributevalue.MarshalMap(contactEmailItem(c))
	return types.TransactWriteItem{Put: &types.Put{TableName: s.t.Name(), Item: av,
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR contact_uuid = :me"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":me": &types.AttributeValueMemberS{Value: c.UUID}},
	}}, err
}

// dropEmail releases c's e-mail reservation if c holds it.
func (s *Store) dropEmail(c model.Contact) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{TableName: s.t.Name(),
		Key:                       table.KeyAttrs(keys.ContactEmail(c.AccountID, c.CustomerUUID, c.EmailValue())),
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR contact_uuid = :me"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":me": &types.AttributeValueMemberS{Value: c.UUID}},
	}}
}

// CreateContact stores a new contact and reserves its e-mail in its customer;
// ErrDuplicateEmail when another contact of the customer has it.
func (s *Store) CreateContact(ctx context.Context, c model.Contact) error {
	return s.SaveContact(ctx, nil, c)
}

// SaveContact writes a new (old == nil) or changed contact. The e-mail reservation
// moves with it in the same transaction. ErrDuplicateEmail for a taken e-mail,
// ErrConflict when the contact changed since it was read, ErrNotFound when deleted.
func (s *Store) SaveContact(ctx context.Context, old *model.Contact, c model.Contact) error {
	now := s.t.Now()
	c.UpdatedAt = now
	cond := table.ItemAbsent
	values := map[string]types.AttributeValue{}
	if old == nil {
		c.Version, c.CreatedAt = 1, now
	} else {
		c.Version = old.Version + 1
		cond = "attribute_exists(PK) AND version = :v"
		values[":v"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(old.Version, 10)}
	}
	av, err := attributevalue.MarshalMap(newContactItem(c))
	if err != nil {
		return err
	}
	put := types.Put{TableName: s.t.Name(), Item: av, ConditionExpression: &cond}
	if len(values) > 0 {
		put.ExpressionAttributeValues = values
	}
	items := []types.TransactWriteItem{{Put: &put}}
	oldEmail := ""
	if old != nil {
		oldEmail = strings.ToLower(old.EmailValue())
	}
	if newEmail := strings.ToLower(c.EmailValue()); newEmail != oldEmail {
		if newEmail != "" {
			it, err := s.putEmail(c)
			if err != nil {
				return err
			}
			items = append(items, it)
		}
		if oldEmail != "" {
			items = append(items, s.dropEmail(*old))
		}
	}
	if len(items) == 1 {
		_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av,
			ConditionExpression: put.ConditionExpression, ExpressionAttributeValues: put.ExpressionAttributeValues,
		})
		return s.contactConflict(ctx, old, table.Conflict(err))
	}
	err = s.t.TransactWrite(ctx, items)
	if table.ConditionFailedAt(err, 1) && strings.ToLower(c.EmailValue()) != oldEmail && c.EmailValue() != "" {
		return store.ErrDuplicateEmail
	}
	return s.contactConflict(ctx, old, table.Conflict(err))
}

func (s *Store) contactConflict(ctx context.Context, old *model.Contact, err error) error {
	if !errors.Is(err, store.ErrConflict) || old == nil {
		return err
	}
	if _, gerr := s.GetContact(ctx, old.AccountID, old.UUID); errors.Is(gerr, store.ErrNotFound) {
		return store.ErrNotFound
	}
	return store.ErrConflict
}

// GetContact reads a contact of the account.
func (s *Store) GetContact(ctx context.Context, accountID, contactUUID string) (model.Contact, error) {
	return table.GetOne(ctx, s.t, keys.Contact(accountID, contactUUID), func(it contactItem) model.Contact { return it.contact() })
}

// DeleteContact removes a contact and its e-mail reservation.
func (s *Store) DeleteContact(ctx context.Context, c model.Contact) error {
	items := []types.TransactWriteItem{{Delete: &types.Delete{TableName: s.t.Name(),
		Key: table.KeyAttrs(keys.Contact(c.AccountID, c.UUID)), ConditionExpression: aws.String(table.ItemExists)}}}
	if c.EmailValue() != "" {
		items = append(items, s.dropEmail(c))
	}
	return table.NotFoundOnCondition(s.t.TransactWrite(ctx, items))
}

// MergeContacts saves into (read as oldInto) and deletes from, in one transaction;
// into takes over from's e-mail reservation when it takes its e-mail.
func (s *Store) MergeContacts(ctx context.Context, oldInto, into, from model.Contact) error {
	into.Version, into.UpdatedAt = oldInto.Version+1, s.t.Now()
	av, err := attributevalue.MarshalMap(newContactItem(into))
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{
		{Put: &types.Put{TableName: s.t.Name(), Item: av,
			ConditionExpression:       aws.String("attribute_exists(PK) AND version = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(oldInto.Version, 10)}}}},
		{Delete: &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(keys.Contact(from.AccountID, from.UUID)),
			ConditionExpression:       aws.String("attribute_exists(PK) AND version = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(from.Version, 10)}}}},
	}
	fromKey := keys.ContactEmail(from.AccountID, from.CustomerUUID, from.EmailValue())
	intoKey := keys.ContactEmail(into.AccountID, into.CustomerUUID, into.EmailValue())
	if from.EmailValue() != "" && fromKey != intoKey {
		items = append(items, s.dropEmail(from))
	}
	if into.EmailValue() != "" && !strings.EqualFold(into.EmailValue(), oldInto.EmailValue()) {
		// The reservation may be from's (same customer): take it over.
		it, err := attributevalue.MarshalMap(contactEmailItem(into))
		if err != nil {
			return err
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: s.t.Name(), Item: it,
			ConditionExpression: aws.String("attribute_not_exists(PK) OR contact_uuid IN (:me, :from)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":me": &types.AttributeValueMemberS{Value: into.UUID}, ":from": &types.AttributeValueMemberS{Value: from.UUID}},
		}})
	}
	return table.Conflict(s.t.TransactWrite(ctx, items))
}

// CustomerContacts returns every contact of a customer (a customer has few).
func (s *Store) CustomerContacts(ctx context.Context, accountID, customerUUID string) ([]model.Contact, error) {
	raw, err := s.t.QueryAll(ctx, &dynamodb.QueryInput{
		IndexName:              aws.String(keys.GSI2),
		KeyConditionExpression: aws.String("GSI2PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: keys.CustomerContacts(accountID, customerUUID)},
		},
	})
	var items []contactItem
	if err == nil {
		err = attributevalue.UnmarshalListOfMaps(raw, &items)
	}
	if err != nil {
		return nil, err
	}
	var out []model.Contact
	for _, it := range items {
		out = append(out, it.contact())
	}
	return out, nil
}

// ListContacts is one page of contacts, newest first: of one customer (GSI2) or of
// the account (GSI1), with the other filters applied by DynamoDB.
func (s *Store) ListContacts(ctx context.Context, accountID string, f store.ContactFilter, limit int, start store.PageToken) (store.Page[model.Contact], error) {
	q := table.IndexListing(keys.GSI1, keys.ContactList(accountID), false)
	if f.CustomerUUID != "" {
		q = table.IndexListing(keys.GSI2, keys.CustomerContacts(accountID, f.CustomerUUID), false)
	}
	if f.DataSourceUUID != "" {
		q.Where("#ds = :ds", map[string]string{"#ds": "data_source_uuid"}, map[string]types.AttributeValue{":ds": table.SAttr(f.DataSourceUUID)})
	}
	if f.Email != "" {
		q.Where("#em = :em", map[string]string{"#em": "email_lower"}, map[string]types.AttributeValue{":em": table.SAttr(strings.ToLower(f.Email))})
	}
	if f.CustomerExternalID != "" {
		q.Where("#cx = :cx", map[string]string{"#cx": "customer_external_id"}, map[string]types.AttributeValue{":cx": table.SAttr(f.CustomerExternalID)})
	}
	return table.ListPage(ctx, s.t, q, limit, start, contactItem.contact, nil)
}
