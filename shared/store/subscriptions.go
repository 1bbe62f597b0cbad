package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
)

// subscriptionItem is one subscription generated from line items (Import-API view).
type subscriptionItem struct {
	PK                        string      `dynamodbav:"PK"`
	SK                        string      `dynamodbav:"SK"`
	ET                        string      `dynamodbav:"et"`
	UUID                      string      `dynamodbav:"uuid"`
	DataSourceUUID            string      `dynamodbav:"ds"`
	CustomerUUID              string      `dynamodbav:"customer_uuid"`
	ExternalID                string      `dynamodbav:"x"`
	SubscriptionSetExternalID string      `dynamodbav:"ss,omitempty"`
	PlanUUID                  string      `dynamodbav:"p"`
	LatestStart               time.Time   `dynamodbav:"ls"`
	CancellationDates         []time.Time `dynamodbav:"cd"`
	CreatedAt                 time.Time   `dynamodbav:"ca"`
	UpdatedAt                 time.Time   `dynamodbav:"ua"`
}

func newSubscriptionItem(sub model.Subscription) subscriptionItem {
	k := keys.Subscription(sub.AccountID, sub.UUID)
	dates := sub.CancellationDates
	if dates == nil {
		dates = []time.Time{}
	}
	return subscriptionItem{PK: k.PK, SK: k.SK, ET: keys.TypeSubscription, UUID: sub.UUID,
		DataSourceUUID: sub.DataSourceUUID, CustomerUUID: sub.CustomerUUID, ExternalID: sub.ExternalID,
		SubscriptionSetExternalID: sub.SubscriptionSetExternalID, PlanUUID: sub.PlanUUID,
		LatestStart: sub.LatestStart, CancellationDates: dates, CreatedAt: sub.CreatedAt, UpdatedAt: sub.UpdatedAt}
}

func (it subscriptionItem) subscription(accountID string) model.Subscription {
	return model.Subscription{AccountID: accountID, UUID: it.UUID, DataSourceUUID: it.DataSourceUUID,
		CustomerUUID: it.CustomerUUID, ExternalID: it.ExternalID, SubscriptionSetExternalID: it.SubscriptionSetExternalID,
		PlanUUID: it.PlanUUID, LatestStart: it.LatestStart, CancellationDates: it.CancellationDates,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
}

// GetSubscription reads a subscription by uuid.
func (s *Store) GetSubscription(ctx context.Context, accountID, subUUID string) (model.Subscription, error) {
	var it subscriptionItem
	if err := s.get(ctx, keys.Subscription(accountID, subUUID), &it); err != nil {
		return model.Subscription{}, err
	}
	return it.subscription(accountID), nil
}

// GetSubscriptions reads subscriptions by uuid; missing ones are absent from the map.
func (s *Store) GetSubscriptions(ctx context.Context, accountID string, uuids []string) (map[string]model.Subscription, error) {
	return getMany(ctx, s, uuids, func(u string) keys.Key { return keys.Subscription(accountID, u) },
		func(it subscriptionItem) string { return it.UUID }, func(it subscriptionItem) model.Subscription { return it.subscription(accountID) })
}

// PutSubscriptions writes subscriptions that are new or already the customer's (the
// condition keeps a subscription external id unique in its data source); one error
// per subscription, ErrOwnedElsewhere for a clash.
func (s *Store) PutSubscriptions(ctx context.Context, subs []model.Subscription) []error {
	errs := make([]error, len(subs))
	parallel.For(len(subs), writeConcurrency, func(i int) {
		errs[i] = s.ownedPut(ctx, newSubscriptionItem(subs[i]), subs[i].CustomerUUID)
	})
	return errs
}

// SetCancellationDates replaces a subscription's cancellation history.
func (s *Store) SetCancellationDates(ctx context.Context, sub model.Subscription, dates []time.Time, now time.Time) (model.Subscription, error) {
	av, err := attributevalue.Marshal(dates)
	if err != nil {
		return model.Subscription{}, err
	}
	if dates == nil {
		av = &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
	}
	nowAV, err := attributevalue.Marshal(now)
	if err != nil {
		return model.Subscription{}, err
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       keyAttrs(keys.Subscription(sub.AccountID, sub.UUID)),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		UpdateExpression:          aws.String("SET cd = :d, ua = :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": av, ":now": nowAV},
		ReturnValues:              types.ReturnValueAllNew,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return model.Subscription{}, notFoundOnCondition(err)
	}
	var it subscriptionItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return model.Subscription{}, err
	}
	return it.subscription(sub.AccountID), nil
}

// DeleteSubscriptionItem removes a subscription if it still belongs to the customer.
func (s *Store) DeleteSubscriptionItem(ctx context.Context, sub model.Subscription) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &s.table,
		Key:                       keyAttrs(keys.Subscription(sub.AccountID, sub.UUID)),
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": sAttr(sub.CustomerUUID)},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	return conflict(err)
}
