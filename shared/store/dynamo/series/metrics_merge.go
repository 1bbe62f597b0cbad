package series

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
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
