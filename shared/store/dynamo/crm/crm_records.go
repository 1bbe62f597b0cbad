package crm

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
	"github.com/subsight/subsight/shared/timefmt"
)

// CRM records (opportunities, tasks) share one layout (keys.Record): the record in its
// customer's partition, so that deleting the customer deletes it; a locator from its
// uuid to its customer; the account's and the customer's index partitions, newest
// first. These functions are that layout's reads and writes; each kind only adds its
// fields (an item type embedding recordHead) and its filters.

// recordHead is what every CRM record item carries besides its own fields.
type recordHead struct {
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
	CreatedAt    time.Time `dynamodbav:"created_at"`
	UpdatedAt    time.Time `dynamodbav:"updated_at"`
}

// newRecordHead lays out a record of kind: its keys follow its customer and creation time.
func newRecordHead(kind keys.Record, m model.RecordMeta) recordHead {
	k := kind.Item(m.AccountID, m.CustomerUUID, m.UUID)
	order := keys.RecordOrder(timefmt.Nanos(m.CreatedAt), m.UUID)
	return recordHead{PK: k.PK, SK: k.SK, ET: kind.Type,
		GSI1PK: kind.ByAccount(m.AccountID), GSI1SK: order, GSI2PK: kind.ByCustomer(m.AccountID, m.CustomerUUID), GSI2SK: order,
		AccountID: m.AccountID, UUID: m.UUID, CustomerUUID: m.CustomerUUID, ContactUUID: m.ContactUUID,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

// meta is the record's common fields.
func (h recordHead) meta() model.RecordMeta {
	return model.RecordMeta{AccountID: h.AccountID, UUID: h.UUID, CustomerUUID: h.CustomerUUID, ContactUUID: h.ContactUUID,
		CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt}
}

func (h recordHead) key() keys.Key { return keys.Key{PK: h.PK, SK: h.SK} }

// recordLocator maps a record's uuid to its customer.
type recordLocator struct {
	PK           string `dynamodbav:"PK"`
	SK           string `dynamodbav:"SK"`
	ET           string `dynamodbav:"et"`
	CustomerUUID string `dynamodbav:"customer_uuid"`
}

func locatorPut(s *Store, kind keys.Record, h recordHead, cond *string) (types.TransactWriteItem, error) {
	loc := kind.Locator(h.AccountID, h.UUID)
	av, err := attributevalue.MarshalMap(recordLocator{PK: loc.PK, SK: loc.SK, ET: kind.LocatorType, CustomerUUID: h.CustomerUUID})
	return types.TransactWriteItem{Put: &types.Put{TableName: s.t.Name(), Item: av, ConditionExpression: cond}}, err
}

// createRecord stores a new record (item, laid out by h) and its locator in one
// transaction that checks the customer exists: store.ErrCustomerNotFound when it does not.
func (s *Store) createRecord(ctx context.Context, kind keys.Record, h recordHead, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	isNew := aws.String(table.ItemAbsent)
	loc, err := locatorPut(s, kind, h, isNew)
	if err != nil {
		return err
	}
	err = s.t.TransactWrite(ctx, []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: s.t.Name(),
			Key:                 table.KeyAttrs(keys.Customer(h.AccountID, h.CustomerUUID)),
			ConditionExpression: aws.String(table.ItemExists)}},
		{Put: &types.Put{TableName: s.t.Name(), Item: av, ConditionExpression: isNew}},
		loc,
	})
	switch table.FailedAt(err) {
	case -1:
		return err
	case 0:
		return store.ErrCustomerNotFound
	default:
		return store.ErrConflict
	}
}

// getRecord reads a record by uuid: its locator, then the record (consistent reads).
// A deleted customer leaves locators behind; their records are gone, so store.ErrNotFound.
func getRecord[I any](ctx context.Context, s *Store, kind keys.Record, accountID, uuid string) (I, error) {
	var loc recordLocator
	var it I
	if err := s.t.Get(ctx, kind.Locator(accountID, uuid), &loc); err != nil {
		return it, err
	}
	err := s.t.Get(ctx, kind.Item(accountID, loc.CustomerUUID, uuid), &it)
	return it, err
}

// replaceRecord writes a record read earlier with its new fields (same customer), only
// if it still exists: store.ErrNotFound when it was deleted meanwhile.
func (s *Store) replaceRecord(ctx context.Context, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av,
		ConditionExpression: aws.String(table.ItemExists)})
	return table.NotFoundOnCondition(err)
}

// deleteRecord removes a record and its locator; store.ErrNotFound when already gone.
func (s *Store) deleteRecord(ctx context.Context, kind keys.Record, h recordHead) error {
	err := s.t.TransactWrite(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(h.key()),
			ConditionExpression: aws.String(table.ItemExists)}},
		{Delete: &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(kind.Locator(h.AccountID, h.UUID))}},
	})
	if table.FailedAt(err) >= 0 {
		return store.ErrNotFound
	}
	return err
}

// moveRecord re-homes a record (item, laid out by to) from the partition of the
// customer in from to to's customer, points its locator there and drops the old copy,
// in one transaction; a repeat after it succeeded writes the same items again.
func (s *Store) moveRecord(ctx context.Context, kind keys.Record, from, to recordHead, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	loc, err := locatorPut(s, kind, to, nil)
	if err != nil {
		return err
	}
	writes := []types.TransactWriteItem{{Put: &types.Put{TableName: s.t.Name(), Item: av}}, loc}
	if from.key() != to.key() {
		writes = append(writes, types.TransactWriteItem{Delete: &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(from.key())}})
	}
	return s.t.TransactWrite(ctx, writes)
}

// customerRecords reads every record of kind of one customer (its partition), converted.
func customerRecords[I, T any](ctx context.Context, s *Store, kind keys.Record, accountID, customerUUID string,
	convert func(I) T) ([]T, error) {
	var items []I
	if err := s.t.QueryPrefix(ctx, keys.CustomerPartition(accountID, customerUUID), kind.Prefix(), &items); err != nil {
		return nil, err
	}
	out := make([]T, len(items))
	for i, it := range items {
		out[i] = convert(it)
	}
	return out, nil
}

// recordListing lists records of kind newest first: one customer's (GSI2) or the
// account's (GSI1).
func recordListing(kind keys.Record, accountID, customerUUID string) table.ListQuery {
	if customerUUID != "" {
		return table.IndexListing(keys.GSI2, kind.ByCustomer(accountID, customerUUID), false)
	}
	return table.IndexListing(keys.GSI1, kind.ByAccount(accountID), false)
}
