package dynamo

import (
	"context"
	"errors"
	"fmt"
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

// Customer merges (POST /v1/customers/merges) move other areas' items to the surviving
// customer. These functions write those items exactly as their owners lay them out
// (the same item builders), only changing which customer they belong to; every one is
// safe to repeat, so a redelivered merge job finishes the work.

type mergeRequestItem struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
	ET string `dynamodbav:"et"`
	store.MergeRequest
}

// PutMergeRequest records a merge to carry out (idempotent).
func (s *Store) PutMergeRequest(ctx context.Context, m store.MergeRequest) error {
	k := keys.MergeRequest(m.AccountID, m.IntoUUID, m.FromUUID)
	return s.t.Put(ctx, mergeRequestItem{PK: k.PK, SK: k.SK, ET: keys.TypeMergeRequest, MergeRequest: m})
}

// PendingMerges lists the merges waiting to go into a customer, oldest first.
func (s *Store) PendingMerges(ctx context.Context, accountID, intoUUID string) ([]store.MergeRequest, error) {
	var items []mergeRequestItem
	if err := s.t.QueryPrefix(ctx, keys.CustomerPartition(accountID, intoUUID), keys.MergeRequestPrefix, &items); err != nil {
		return nil, err
	}
	out := make([]store.MergeRequest, len(items))
	for i, it := range items {
		out[i] = it.MergeRequest
	}
	return out, nil
}

// DeleteMergeRequest forgets a merge that has been carried out.
func (s *Store) DeleteMergeRequest(ctx context.Context, m store.MergeRequest) error {
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key: table.KeyAttrs(keys.MergeRequest(m.AccountID, m.IntoUUID, m.FromUUID))})
	return err
}

// ReassignOwner makes an owned record (invoice, subscription, subscription event:
// attribute customer_uuid) belong to into instead of from. A record already into's, or
// gone, is left alone.
func (s *Store) ReassignOwner(ctx context.Context, accountID string, kind store.OwnedKind, id, fromUUID, intoUUID string) error {
	var k keys.Key
	switch kind {
	case store.OwnedInvoice:
		k = keys.Invoice(accountID, id)
	case store.OwnedSubscription:
		k = keys.Subscription(accountID, id)
	case store.OwnedSubscriptionEvent:
		k = keys.SubscriptionEvent(accountID, id)
	default:
		return fmt.Errorf("reassign %s: unknown kind of record %d", id, kind)
	}
	return s.reassignOwner(ctx, k, fromUUID, intoUUID)
}

// reassignOwner makes the item k (attribute customer_uuid) belong to into instead of
// from; an item already into's, or gone, is left alone.
func (s *Store) reassignOwner(ctx context.Context, k keys.Key, fromUUID, intoUUID string) error {
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                 table.KeyAttrs(k),
		UpdateExpression:    aws.String("SET customer_uuid = :into"),
		ConditionExpression: aws.String("customer_uuid = :from"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":from": table.SAttr(fromUUID), ":into": table.SAttr(intoUUID)},
	})
	if errors.Is(table.Conflict(err), store.ErrConflict) {
		return nil
	}
	return err
}

// ReassignCustomerExternalID points a customer external-id reservation at into, so
// that later imports of from's external id land on the merged customer.
func (s *Store) ReassignCustomerExternalID(ctx context.Context, accountID, dsUUID, externalID, fromUUID, intoUUID string) error {
	return s.reassignOwner(ctx, keys.CustomerExternalID(accountID, dsUUID, externalID), fromUUID, intoUUID)
}

// MoveContact makes a contact into's, moving its e-mail reservation with it, in one
// transaction. ErrDuplicateEmail when into already has a contact with that e-mail.
func (s *Store) MoveContact(ctx context.Context, c model.Contact, into model.Customer) error {
	next := c
	next.CustomerUUID, next.CustomerExternalID = into.UUID, into.ExternalID
	next.Version, next.UpdatedAt = c.Version+1, s.t.Now()
	av, err := attributevalue.MarshalMap(newContactItem(next))
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{{Put: &types.Put{TableName: s.t.Name(), Item: av,
		ConditionExpression: aws.String("attribute_exists(PK) AND version = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(c.Version, 10)}}}}}
	if c.EmailValue() != "" {
		put, err := s.putEmail(next)
		if err != nil {
			return err
		}
		items = append(items, put, s.dropEmail(c))
	}
	err = s.t.TransactWrite(ctx, items)
	if table.ConditionFailedAt(err, 1) {
		return store.ErrDuplicateEmail
	}
	return table.Conflict(err)
}
