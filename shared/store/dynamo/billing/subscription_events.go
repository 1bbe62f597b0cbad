package billing

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// SubscriptionEventItem is one subscription event. Its id is derived from what
// identifies it (model.EventIDFor), so the key itself makes a replay overwrite it.
// GSI1 lists the account's events for GET /v1/subscription_events.
type SubscriptionEventItem struct {
	PK             string            `dynamodbav:"PK"`
	SK             string            `dynamodbav:"SK"`
	ET             string            `dynamodbav:"et"`
	GSI1PK         string            `dynamodbav:"GSI1PK"`
	GSI1SK         string            `dynamodbav:"GSI1SK"`
	ID             int64             `dynamodbav:"id"`
	DataSourceUUID string            `dynamodbav:"ds"`
	CustomerUUID   string            `dynamodbav:"customer_uuid"`
	Fields         model.EventFields `dynamodbav:"f"`
	Disabled       *disabled         `dynamodbav:"dis,omitempty"`
	CreatedAt      time.Time         `dynamodbav:"ca"`
	UpdatedAt      time.Time         `dynamodbav:"ua"`
}

func NewSubscriptionEventItem(accountID string, e model.SubscriptionEvent) SubscriptionEventItem {
	k := keys.SubscriptionEvent(accountID, strconv.FormatInt(e.ID, 10))
	return SubscriptionEventItem{PK: k.PK, SK: k.SK, ET: keys.TypeSubscriptionEvent,
		GSI1PK: keys.SubscriptionEvents(accountID, e.ID), GSI1SK: keys.SubscriptionEventOrder(e.ID),
		ID: e.ID, DataSourceUUID: e.DataSourceUUID, CustomerUUID: e.CustomerUUID, Fields: e.EventFields,
		Disabled: disabledOf(e.DisabledState), CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func (it SubscriptionEventItem) Event(accountID string) model.SubscriptionEvent {
	return model.SubscriptionEvent{AccountID: accountID, ID: it.ID, DataSourceUUID: it.DataSourceUUID,
		CustomerUUID: it.CustomerUUID, EventFields: it.Fields, DisabledState: it.Disabled.state(), CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
}

// GetSubscriptionEvents reads events by id; missing ones are absent from the map.
func (s *Store) GetSubscriptionEvents(ctx context.Context, accountID string, idList []int64) (map[int64]model.SubscriptionEvent, error) {
	seen := map[int64]bool{}
	var keyList []map[string]types.AttributeValue
	for _, id := range idList {
		if !seen[id] {
			seen[id] = true
			keyList = append(keyList, table.KeyAttrs(keys.SubscriptionEvent(accountID, strconv.FormatInt(id, 10))))
		}
	}
	raw, err := s.t.BatchGet(ctx, keyList)
	if err != nil {
		return nil, err
	}
	var items []SubscriptionEventItem
	if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
		return nil, err
	}
	out := make(map[int64]model.SubscriptionEvent, len(items))
	for _, it := range items {
		out[it.ID] = it.Event(accountID)
	}
	return out, nil
}

// GetSubscriptionEvent reads one event.
func (s *Store) GetSubscriptionEvent(ctx context.Context, accountID string, id int64) (model.SubscriptionEvent, error) {
	return table.GetOne(ctx, s.t, keys.SubscriptionEvent(accountID, strconv.FormatInt(id, 10)), func(it SubscriptionEventItem) model.SubscriptionEvent { return it.Event(accountID) })
}

// PutSubscriptionEvents writes events with BatchWriteItem (25 per request); their
// derived ids make a repeat overwrite instead of duplicating.
func (s *Store) PutSubscriptionEvents(ctx context.Context, accountID string, events []model.SubscriptionEvent) error {
	var reqs []types.WriteRequest
	for _, e := range events {
		av, err := attributevalue.MarshalMap(NewSubscriptionEventItem(accountID, e))
		if err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
	}
	return s.t.BatchWrite(ctx, reqs)
}
