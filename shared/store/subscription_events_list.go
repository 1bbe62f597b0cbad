package store

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// ErrEventExists: a subscription event with another content already has this id
// (the same external id in the data source).
var ErrEventExists = errors.New("subscription event external id already used")

// EachSubscriptionEvent walks the account's subscription events in id order, after
// afterID (0: from the start), until fn returns false.
func (s *Store) EachSubscriptionEvent(ctx context.Context, accountID string, afterID int64, fn func(model.SubscriptionEvent) bool) error {
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:              &s.table,
		IndexName:              aws.String(keys.GSI1),
		KeyConditionExpression: aws.String("GSI1PK = :pk AND GSI1SK > :after"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":    sAttr(keys.SubscriptionEvents(accountID)),
			":after": sAttr(keys.SubscriptionEventOrder(afterID)),
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		var items []subscriptionEventItem
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
			return err
		}
		for _, it := range items {
			if !fn(it.event(accountID)) {
				return nil
			}
		}
	}
	return nil
}

// CreateSubscriptionEvent writes a new event; ErrEventExists when its id is taken
// (the conditional put keeps an external id unique in its data source).
func (s *Store) CreateSubscriptionEvent(ctx context.Context, e model.SubscriptionEvent) error {
	err := s.putNew(ctx, newSubscriptionEventItem(e.AccountID, e))
	if errors.Is(err, ErrConflict) {
		return ErrEventExists
	}
	return err
}

// ReplaceSubscriptionEvent overwrites an event that still exists.
func (s *Store) ReplaceSubscriptionEvent(ctx context.Context, e model.SubscriptionEvent) error {
	av, err := attributevalue.MarshalMap(newSubscriptionEventItem(e.AccountID, e))
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av,
		ConditionExpression:    aws.String("attribute_exists(PK)"),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	return notFoundOnCondition(err)
}
