package series

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
	"github.com/subsight/subsight/shared/timefmt"
)

// ActivityOrder finds an activity of the account by uuid and returns its place in the
// activity log (its index sort key, keys.ActivityOrder); store.ErrNotFound when no
// activity of the account has that uuid. The uuid carries the activity's time to the
// millisecond: an activity dated on a whole millisecond (every one the engine makes from
// dates and timestamps of imported records) is one Query of its exact sort key; another
// is found in the Queries of that millisecond of the account's log.
func (s *Store) ActivityOrder(ctx context.Context, accountID, activityUUID string) (string, error) {
	at, ok := ids.ActivityTime(activityUUID)
	if !ok {
		return "", store.ErrNotFound
	}
	exact := keys.ActivityOrder(timefmt.Nanos(at), activityUUID)
	in := dynamodb.QueryInput{
		IndexName:                 aws.String(keys.GSI1),
		KeyConditionExpression:    aws.String("GSI1PK = :pk AND GSI1SK = :sk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.SAttr(keys.ActivitiesByAccount(accountID, activityUUID)), ":sk": table.SAttr(exact)},
		ProjectionExpression:      aws.String("GSI1SK"),
	}
	for window := false; ; {
		out, err := s.t.Query(ctx, &in)
		if err != nil {
			return "", err
		}
		if len(out.Items) > 0 {
			if sk, ok := out.Items[0][keys.GSI1SK].(*types.AttributeValueMemberS); ok {
				return sk.Value, nil
			}
		}
		switch {
		case len(out.LastEvaluatedKey) > 0:
			in.ExclusiveStartKey = out.LastEvaluatedKey
		case window:
			return "", store.ErrNotFound
		default:
			window = true
			in.KeyConditionExpression = aws.String("GSI1PK = :pk AND GSI1SK BETWEEN :lo AND :hi")
			in.FilterExpression = aws.String("#uuid = :uuid")
			in.ExpressionAttributeNames = map[string]string{"#uuid": "uuid"}
			in.ExpressionAttributeValues = map[string]types.AttributeValue{
				":pk": in.ExpressionAttributeValues[":pk"], ":uuid": table.SAttr(activityUUID),
				":lo": table.SAttr(timefmt.Nanos(at)), ":hi": table.SAttr(timefmt.Nanos(at.Add(time.Millisecond-1)) + "~")}
		}
	}
}

// afterBounds narrows an activity listing's sort-key range [lo, hi] to what comes
// after the activity at order (in the listing's direction); no order leaves it as is.
// Sort keys all have order's length, so order+"!" is above order and below any greater
// key, and order with its last character lowered and "~" appended is below order and
// above any smaller one.
func afterBounds(lo, hi, order string, descending bool) (string, string) {
	if order == "" {
		return lo, hi
	}
	if descending {
		below := order[:len(order)-1] + string(order[len(order)-1]-1) + "~"
		return lo, min(hi, below)
	}
	return max(lo, order+"!"), hi
}
