package series

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
	"github.com/subsight/subsight/shared/timefmt"
)

// activityItem is an activity of the account activity log (store.Activity) as
// stored: in its customer's activity partition; GSI1 lists the account's activities by
// date and GSI2 those of one type.
type activityItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	ET     string `dynamodbav:"et"`
	GSI1PK string `dynamodbav:"GSI1PK"`
	GSI1SK string `dynamodbav:"GSI1SK"`
	GSI2PK string `dynamodbav:"GSI2PK"`
	GSI2SK string `dynamodbav:"GSI2SK"`
	store.Activity
}

func (it activityItem) activity() store.Activity { return it.Activity }

func activityAttrs(accountID string, a store.Activity) (map[string]types.AttributeValue, error) {
	order := keys.ActivityOrder(timefmt.Nanos(a.Date), a.UUID)
	k := keys.Activity(accountID, a.CustomerUUID, order)
	return attributevalue.MarshalMap(activityItem{PK: k.PK, SK: k.SK, ET: keys.TypeActivity,
		GSI1PK: keys.ActivitiesByAccount(accountID, a.UUID), GSI1SK: order,
		GSI2PK: keys.ActivitiesByType(accountID, a.Type, a.UUID), GSI2SK: order, Activity: a})
}

// WriteActivities puts activities of a customer and deletes others by sort key (all
// plain puts and deletes, so a repeat is harmless).
func (ss SeriesStorage) WriteActivities(ctx context.Context, accountID, customerUUID string, put []store.Activity, drop []string) error {
	s := ss.store
	reqs := make([]types.WriteRequest, 0, len(put)+len(drop))
	for _, a := range put {
		item, err := activityAttrs(accountID, a)
		if err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	pk := keys.ActivityPartition(accountID, customerUUID)
	for _, sk := range drop {
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: table.KeyAttrs(keys.Key{PK: pk, SK: sk})}})
	}
	return s.t.BatchWrite(ctx, reqs)
}

// ListActivities reads one page of the account's activities from GSI1 (all types) or
// GSI2 (one type), in date order: one Query per shard of the log.
func (s *Store) ListActivities(ctx context.Context, accountID string, f store.ActivityFilter, limit int,
	start store.PageToken) (store.Page[store.Activity], error) {
	index, pkAttr, skAttr, pks := keys.GSI1, keys.GSI1PK, keys.GSI1SK, keys.ActivitiesByAccountShards(accountID)
	if f.Type != "" {
		index, pkAttr, skAttr, pks = keys.GSI2, keys.GSI2PK, keys.GSI2SK, keys.ActivitiesByTypeShards(accountID, f.Type)
	}
	// Sort keys start with a fixed-width time; "0" sorts before any of them and "~"
	// after the "#uuid" that follows one.
	lo, hi := "0", "~"
	if !f.From.IsZero() {
		lo = timefmt.Nanos(f.From)
	}
	if !f.To.IsZero() {
		hi = timefmt.Nanos(f.To) + "~"
	}
	if lo, hi = afterBounds(lo, hi, f.After, f.Descending); lo > hi {
		return store.Page[store.Activity]{Items: []store.Activity{}}, nil
	}
	l := table.ShardedListing{PKs: pks, SKAttr: skAttr, Descending: f.Descending,
		Query: func(pk, after string) table.ListQuery {
			lo, hi := afterBounds(lo, hi, after, f.Descending)
			return table.ListQuery{
				In: dynamodb.QueryInput{IndexName: aws.String(index),
					KeyConditionExpression:    aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
					ExpressionAttributeNames:  map[string]string{"#pk": pkAttr, "#sk": skAttr},
					ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.SAttr(pk), ":lo": table.SAttr(lo), ":hi": table.SAttr(hi)},
					ScanIndexForward:          aws.Bool(!f.Descending)},
				KeyNames: []string{keys.PK, keys.SK, pkAttr, skAttr},
			}
		}}
	return table.ShardedPage(ctx, s.t, l, limit, start, activityItem.activity, nil)
}

// ListCustomerActivities reads one page of a customer's activities, oldest first.
func (s *Store) ListCustomerActivities(ctx context.Context, accountID, customerUUID string, limit int,
	start store.PageToken) (store.Page[store.Activity], error) {
	q := table.PrefixListing(keys.ActivityPartition(accountID, customerUUID), keys.ActivityPrefix)
	return table.ListPage(ctx, s.t, q, limit, start, activityItem.activity, nil)
}
