package billing

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// An external id of a data source belongs to one event. The event created with it
// holds it by its key (its id is model.ExternalEventID of it); an event that a PATCH
// gave it holds it through a claim item (keys.SubscriptionEventExternalID) in the data
// source's partition. Every write that gives an event an external id checks both in
// the same transaction, so two events can never end up with the same one.

type EventExternalIDItem struct {
	PK      string `dynamodbav:"PK"`
	SK      string `dynamodbav:"SK"`
	ET      string `dynamodbav:"et"`
	EventID int64  `dynamodbav:"event_id"`
}

func EventKey(accountID string, id int64) keys.Key {
	return keys.SubscriptionEvent(accountID, strconv.FormatInt(id, 10))
}

// claimed tells whether e holds external id ext through a claim item, i.e. its id was
// not derived from ext.
func claimed(e model.SubscriptionEvent, ext string) bool {
	return ext != "" && model.ExternalEventID(e.AccountID, e.DataSourceUUID, ext) != e.ID
}

func claimKey(e model.SubscriptionEvent, ext string) map[string]types.AttributeValue {
	return table.KeyAttrs(keys.SubscriptionEventExternalID(e.AccountID, e.DataSourceUUID, ext))
}

// mineOrFree is the condition on a claim item that e may hold (or drop).
func mineOrFree(e model.SubscriptionEvent) (*string, map[string]types.AttributeValue) {
	return aws.String("attribute_not_exists(PK) OR event_id = :id"),
		map[string]types.AttributeValue{":id": &types.AttributeValueMemberN{Value: strconv.FormatInt(e.ID, 10)}}
}

// CreateSubscriptionEvent writes a new event: ErrEventExists when its id is taken,
// ErrEventExternalIDTaken when a PATCH gave its external id to another event.
func (s *Store) CreateSubscriptionEvent(ctx context.Context, e model.SubscriptionEvent) error {
	if e.ExternalID == "" {
		if err := s.t.PutNew(ctx, NewSubscriptionEventItem(e.AccountID, e)); !errors.Is(err, store.ErrConflict) {
			return err
		}
		return store.ErrEventExists
	}
	av, err := attributevalue.MarshalMap(NewSubscriptionEventItem(e.AccountID, e))
	if err != nil {
		return err
	}
	cond, values := mineOrFree(e)
	at, err := s.transactAt(ctx, []types.TransactWriteItem{
		{Put: &types.Put{TableName: s.t.Name(), Item: av, ConditionExpression: aws.String(table.ItemAbsent)}},
		{ConditionCheck: &types.ConditionCheck{TableName: s.t.Name(), Key: claimKey(e, e.ExternalID),
			ConditionExpression: cond, ExpressionAttributeValues: values}},
	})
	switch at {
	case 0:
		return store.ErrEventExists
	case 1:
		return store.ErrEventExternalIDTaken
	}
	return err
}

// SaveSubscriptionEvent writes next over old (the same event as read): ErrConflict
// when it changed or went meanwhile. A new external id is taken in the same
// transaction, refused with ErrEventExternalIDTaken when an event holds it, and the
// old one's claim is released; a refused write changes nothing.
func (s *Store) SaveSubscriptionEvent(ctx context.Context, old, next model.SubscriptionEvent) error {
	av, err := attributevalue.MarshalMap(NewSubscriptionEventItem(next.AccountID, next))
	if err != nil {
		return err
	}
	readAt, err := attributevalue.Marshal(old.UpdatedAt)
	if err != nil {
		return err
	}
	put := &types.Put{TableName: s.t.Name(), Item: av, ConditionExpression: aws.String("attribute_exists(PK) AND ua = :ua"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":ua": readAt}}
	if old.ExternalID == next.ExternalID {
		_, err := s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: put.Item,
			ConditionExpression: put.ConditionExpression, ExpressionAttributeValues: put.ExpressionAttributeValues,
		})
		return table.Conflict(err)
	}
	items := []types.TransactWriteItem{{Put: put}}
	cond, values := mineOrFree(next)
	if ext := next.ExternalID; claimed(next, ext) {
		// Free unless the event created with it still has it.
		items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: s.t.Name(),
			Key:                       table.KeyAttrs(EventKey(next.AccountID, model.ExternalEventID(next.AccountID, next.DataSourceUUID, ext))),
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR #f.#x <> :x"),
			ExpressionAttributeNames:  map[string]string{"#f": "f", "#x": "ExternalID"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":x": table.SAttr(ext)}}})
		claim := keys.SubscriptionEventExternalID(next.AccountID, next.DataSourceUUID, ext)
		item, err := attributevalue.MarshalMap(EventExternalIDItem{PK: claim.PK, SK: claim.SK,
			ET: keys.TypeSubscriptionEvtExt, EventID: next.ID})
		if err != nil {
			return err
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: s.t.Name(), Item: item,
			ConditionExpression: cond, ExpressionAttributeValues: values}})
	} else if ext != "" {
		// Back to the external id it was created with: nobody else may have claimed it meanwhile.
		items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: s.t.Name(),
			Key: claimKey(next, ext), ConditionExpression: cond, ExpressionAttributeValues: values}})
	}
	taken := len(items)
	if claimed(old, old.ExternalID) {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: s.t.Name(),
			Key: claimKey(old, old.ExternalID), ConditionExpression: cond, ExpressionAttributeValues: values}})
	}
	switch at, err := s.transactAt(ctx, items); {
	case at > 0 && at < taken:
		return store.ErrEventExternalIDTaken
	case at >= 0:
		return store.ErrConflict
	default:
		return err
	}
}

// DeleteSubscriptionEvent removes an event, with the claim of its external id, if it
// still belongs to its customer (ErrConflict when a merge moved it meanwhile).
func (s *Store) DeleteSubscriptionEvent(ctx context.Context, e model.SubscriptionEvent) error {
	del := &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(EventKey(e.AccountID, e.ID)),
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": table.SAttr(e.CustomerUUID)}}
	if !claimed(e, e.ExternalID) {
		_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{Key: del.Key,
			ConditionExpression: del.ConditionExpression, ExpressionAttributeValues: del.ExpressionAttributeValues,
		})
		return table.Conflict(err)
	}
	cond, values := mineOrFree(e)
	return table.Conflict(s.t.TransactWrite(ctx, []types.TransactWriteItem{{Delete: del}, {Delete: &types.Delete{TableName: s.t.Name(),
		Key: claimKey(e, e.ExternalID), ConditionExpression: cond, ExpressionAttributeValues: values}}}))
}

// SubscriptionEventByExternalID finds the event of a data source with an external
// id: the one created with it, else the one its claim item points at.
func (s *Store) SubscriptionEventByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (model.SubscriptionEvent, error) {
	holds := func(e model.SubscriptionEvent) bool { return e.DataSourceUUID == dsUUID && e.ExternalID == externalID }
	e, err := s.GetSubscriptionEvent(ctx, accountID, model.ExternalEventID(accountID, dsUUID, externalID))
	if err == nil && holds(e) {
		return e, nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return e, err
	}
	var c EventExternalIDItem
	if err := s.t.Get(ctx, keys.SubscriptionEventExternalID(accountID, dsUUID, externalID), &c); err != nil {
		return model.SubscriptionEvent{}, err
	}
	if e, err = s.GetSubscriptionEvent(ctx, accountID, c.EventID); err == nil && !holds(e) {
		return model.SubscriptionEvent{}, store.ErrNotFound
	}
	return e, err
}

// transactAt runs a write transaction; at is the index of the first item whose
// condition failed (err then nil), -1 otherwise.
func (s *Store) transactAt(ctx context.Context, items []types.TransactWriteItem) (at int, err error) {
	err = s.t.TransactWrite(ctx, items)
	if at := table.FailedAt(err); at >= 0 {
		return at, nil
	}
	return -1, err
}

// ClaimSubscriptionEvents writes the events an import creates, each if it is new or
// already the customer's: the event's id derives from its data source and external
// id, so the condition keeps the external id unique in its data source. One error per
// event, ErrOwnedElsewhere for a clash.
func (s *Store) ClaimSubscriptionEvents(ctx context.Context, es []model.SubscriptionEvent) []error {
	return putAllOwned(ctx, s, es, func(e model.SubscriptionEvent) (any, string) {
		return NewSubscriptionEventItem(e.AccountID, e), e.CustomerUUID
	})
}
