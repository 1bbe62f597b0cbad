package billing

import (
	"cmp"
	"context"
	"slices"
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

// SubscriptionItem is one subscription generated from line items (Import-API view).
type SubscriptionItem struct {
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

func NewSubscriptionItem(sub model.Subscription) SubscriptionItem {
	k := keys.Subscription(sub.AccountID, sub.UUID)
	dates := sub.CancellationDates
	if dates == nil {
		dates = []time.Time{}
	}
	return SubscriptionItem{PK: k.PK, SK: k.SK, ET: keys.TypeSubscription, UUID: sub.UUID,
		DataSourceUUID: sub.DataSourceUUID, CustomerUUID: sub.CustomerUUID, ExternalID: sub.ExternalID,
		SubscriptionSetExternalID: sub.SubscriptionSetExternalID, PlanUUID: sub.PlanUUID,
		LatestStart: sub.LatestStart, CancellationDates: dates, CreatedAt: sub.CreatedAt, UpdatedAt: sub.UpdatedAt}
}

func (it SubscriptionItem) Subscription(accountID string) model.Subscription {
	return model.Subscription{AccountID: accountID, UUID: it.UUID, DataSourceUUID: it.DataSourceUUID,
		CustomerUUID: it.CustomerUUID, ExternalID: it.ExternalID, SubscriptionSetExternalID: it.SubscriptionSetExternalID,
		PlanUUID: it.PlanUUID, LatestStart: it.LatestStart, CancellationDates: it.CancellationDates,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
}

// GetSubscription reads a subscription by uuid.
func (s *Store) GetSubscription(ctx context.Context, accountID, subUUID string) (model.Subscription, error) {
	return table.GetOne(ctx, s.t, keys.Subscription(accountID, subUUID),
		func(it SubscriptionItem) model.Subscription { return it.Subscription(accountID) })
}

// GetSubscriptions reads subscriptions by uuid; missing ones are absent from the map.
func (s *Store) GetSubscriptions(ctx context.Context, accountID string, uuids []string) (map[string]model.Subscription, error) {
	return table.GetMany(ctx, s.t, uuids, func(u string) keys.Key { return keys.Subscription(accountID, u) },
		func(it SubscriptionItem) string { return it.UUID }, func(it SubscriptionItem) model.Subscription { return it.Subscription(accountID) })
}

// PutSubscriptions writes subscriptions that are new or already the customer's (the
// condition keeps a subscription external id unique in its data source); one error
// per subscription, ErrOwnedElsewhere for a clash.
func (s *Store) PutSubscriptions(ctx context.Context, subs []model.Subscription) []error {
	return putAllOwned(ctx, s, subs, func(sub model.Subscription) (any, string) { return NewSubscriptionItem(sub), sub.CustomerUUID })
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
	out, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                       table.KeyAttrs(keys.Subscription(sub.AccountID, sub.UUID)),
		ConditionExpression:       aws.String(table.ItemExists),
		UpdateExpression:          aws.String("SET cd = :d, ua = :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": av, ":now": nowAV},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return model.Subscription{}, table.NotFoundOnCondition(err)
	}
	var it SubscriptionItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return model.Subscription{}, err
	}
	return it.Subscription(sub.AccountID), nil
}

// DeleteSubscriptionItem removes a subscription if it still belongs to the customer.
func (s *Store) DeleteSubscriptionItem(ctx context.Context, sub model.Subscription) error {
	return s.ownedDelete(ctx, keys.Subscription(sub.AccountID, sub.UUID), sub.CustomerUUID)
}

// ListCustomerSubscriptions is one page of a customer's subscriptions, oldest first
// (by creation, then uuid), as its billing index lists them; one it lists but does not
// own (moved by a merge) is skipped but counts in the page. Total is the index's size.
func (s *Store) ListCustomerSubscriptions(ctx context.Context, accountID, customerUUID string, limit int,
	start store.PageToken) (store.Page[model.Subscription], error) {
	afterUUID, after, resume, err := subscriptionPositionOf(start)
	if err != nil {
		return store.Page[model.Subscription]{}, err
	}
	idx, err := s.GetBillingIndex(ctx, accountID, customerUUID)
	if err != nil {
		return store.Page[model.Subscription]{}, err
	}
	created := idx.Subscriptions
	rest := make([]string, 0, len(created))
	for u, t := range created {
		if !resume || t > after || (t == after && u > afterUUID) {
			rest = append(rest, u)
		}
	}
	slices.SortFunc(rest, func(a, b string) int {
		if c := cmp.Compare(created[a], created[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	page := rest[:min(limit, len(rest))]
	found, err := s.GetSubscriptions(ctx, accountID, page)
	if err != nil {
		return store.Page[model.Subscription]{}, err
	}
	p := store.Page[model.Subscription]{Items: []model.Subscription{}, HasMore: len(rest) > limit, Total: len(created), TotalKnown: true}
	for _, u := range page {
		if sub, ok := found[u]; ok && sub.CustomerUUID == customerUUID {
			p.Items = append(p.Items, sub)
		}
		p.Next = subscriptionToken(u, created[u])
	}
	return p, nil
}
