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
// order: one Query of Limit+1 items, the extra one only telling whether more exist
// (the store's listing engine).
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
	page, err := d.Store.QueryPage(ctx, dynamodb.QueryInput{
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames:  map[string]string{"#pk": pkAttr, "#sk": skAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(pk), ":lo": s(lo), ":hi": s(hi)},
		ScanIndexForward:          aws.Bool(!q.Descending),
	}, []string{keys.PK, keys.SK, pkAttr, skAttr}, q.Limit, q.Start)
	if err != nil {
		return ActivityPage{}, err
	}
	var stored []activityItem
	if err := attributevalue.UnmarshalListOfMaps(page.Items, &stored); err != nil {
		return ActivityPage{}, err
	}
	out := ActivityPage{LastKey: page.LastKey, HasMore: page.HasMore}
	for _, it := range stored {
		out.Activities = append(out.Activities, it.Activity)
	}
	return out, nil
}
