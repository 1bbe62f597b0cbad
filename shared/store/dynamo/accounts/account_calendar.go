package accounts

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// UpdateCalendar replaces the account's time zone and first day of the week (the
// calendar of its metrics; the caller re-buckets the account series afterwards).
func (s *Store) UpdateCalendar(ctx context.Context, accountID, timeZone, weekStartOn string) error {
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                 table.KeyAttrs(keys.Account(accountID)),
		ConditionExpression: aws.String(table.ItemExists),
		UpdateExpression:    aws.String("SET time_zone = :tz, week_start_on = :ws"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":tz": &types.AttributeValueMemberS{Value: timeZone}, ":ws": &types.AttributeValueMemberS{Value: weekStartOn}},
	})
	return table.NotFoundOnCondition(err)
}
