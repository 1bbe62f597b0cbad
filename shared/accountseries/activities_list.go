package accountseries

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/keys"
)

// ActivityQuery selects a page of the account's activities. From and To are OrderTime
// bounds (inclusive; empty = unbounded), Type one movement type or empty.
type ActivityQuery struct {
	From, To   string
	Type       string
	Descending bool
	Limit      int
	Start      map[string]types.AttributeValue // a LastKey of an earlier page of the same query
}

// ActivityPage is one page of activities.
type ActivityPage struct {
	Activities []Activity
	LastKey    map[string]types.AttributeValue // key of the last activity returned
	HasMore    bool
}

// ListActivities reads one page from GSI1 (all types) or GSI2 (one type), in date
// order: one Query of Limit+1 items, the extra one only telling whether more exist.
func ListActivities(ctx context.Context, d *app.Deps, accountID string, q ActivityQuery) (ActivityPage, error) {
	index, pkAttr, skAttr, pk := keys.GSI1, keys.GSI1PK, keys.GSI1SK, keys.ActivitiesByAccount(accountID)
	if q.Type != "" {
		index, pkAttr, skAttr, pk = keys.GSI2, keys.GSI2PK, keys.GSI2SK, keys.ActivitiesByType(accountID, q.Type)
	}
	// Sort keys start with a fixed-width time; "0" sorts before any of them and "~"
	// after the "#uuid" that follows one.
	lo, hi := q.From, q.To+"~"
	if lo == "" {
		lo = "0"
	}
	if q.To == "" {
		hi = "~"
	}
	db := newDB(d)
	in := &dynamodb.QueryInput{
		TableName:                 &db.table,
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames:  map[string]string{"#pk": pkAttr, "#sk": skAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(pk), ":lo": s(lo), ":hi": s(hi)},
		ScanIndexForward:          aws.Bool(!q.Descending),
		ExclusiveStartKey:         q.Start,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	var items []map[string]types.AttributeValue
	for {
		in.Limit = aws.Int32(int32(q.Limit + 1 - len(items)))
		out, err := db.client.Query(ctx, in)
		if err != nil {
			return ActivityPage{}, err
		}
		items = append(items, out.Items...)
		if len(items) > q.Limit || out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	page := ActivityPage{HasMore: len(items) > q.Limit}
	items = items[:min(len(items), q.Limit)]
	var stored []activityItem
	if err := attributevalue.UnmarshalListOfMaps(items, &stored); err != nil {
		return ActivityPage{}, err
	}
	for _, it := range stored {
		page.Activities = append(page.Activities, it.Activity)
	}
	if n := len(items); n > 0 {
		last := items[n-1]
		page.LastKey = map[string]types.AttributeValue{keys.PK: last[keys.PK], keys.SK: last[keys.SK],
			pkAttr: last[pkAttr], skAttr: last[skAttr]}
	}
	return page, nil
}
