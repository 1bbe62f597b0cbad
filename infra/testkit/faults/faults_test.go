package faults

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestTouches: which requests touch the hot partition "acc#HOT".
func TestTouches(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(pk), "SK": s("X")}
	}
	tests := []struct {
		name   string
		params any
		want   bool
	}{
		{"GetItem of the partition", &dynamodb.GetItemInput{Key: key("acc#HOT")}, true},
		{"GetItem elsewhere", &dynamodb.GetItemInput{Key: key("acc#COLD")}, false},
		{"an SK equal to the value is no hit", &dynamodb.GetItemInput{Key: map[string]types.AttributeValue{"PK": s("acc"), "SK": s("acc#HOT")}}, false},
		{"PutItem", &dynamodb.PutItemInput{Item: key("acc#HOT")}, true},
		{"UpdateItem", &dynamodb.UpdateItemInput{Key: key("acc#HOT")}, true},
		{"Query of the table", &dynamodb.QueryInput{ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s("acc#HOT")}}, true},
		{"Query of an index", &dynamodb.QueryInput{IndexName: aws.String("GSI1"), ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s("acc#HOT")}}, false},
		{"BatchGetItem with one key there", &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			"t": {Keys: []map[string]types.AttributeValue{key("acc#COLD"), key("acc#HOT")}}}}, true},
		{"BatchWriteItem elsewhere", &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"t": {{PutRequest: &types.PutRequest{Item: key("acc#COLD")}}}}}, false},
		{"TransactWriteItems with an update there", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{Item: key("acc#COLD")}}, {Update: &types.Update{Key: key("acc#HOT")}}}}, true},
		{"TransactGetItems", &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{Key: key("acc#HOT")}}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := touches(tc.params, func(pk string) bool { return pk == "acc#HOT" }); got != tc.want {
				t.Errorf("touches = %v, want %v", got, tc.want)
			}
		})
	}
}
