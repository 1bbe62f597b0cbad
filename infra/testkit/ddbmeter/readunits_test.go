package ddbmeter_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
)

// sized is an item of exactly n bytes by DynamoDB's rules (one attribute "s").
func sized(n int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"s": &types.AttributeValueMemberS{Value: strings.Repeat("x", n-1)}}
}

func TestReadUnits(t *testing.T) {
	const table = "t"
	batchIn := func(consistent bool, keys int) *dynamodb.BatchGetItemInput {
		return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			table: {Keys: make([]map[string]types.AttributeValue, keys), ConsistentRead: aws.Bool(consistent)}}}
	}
	tests := []struct {
		name     string
		in, out  any
		units    float64
		items    int
		notARead bool
	}{
		{name: "consistent get of 4 KB", in: &dynamodb.GetItemInput{ConsistentRead: aws.Bool(true)},
			out: &dynamodb.GetItemOutput{Item: sized(4096)}, units: 1, items: 1},
		{name: "consistent get of 4 KB + 1", in: &dynamodb.GetItemInput{ConsistentRead: aws.Bool(true)},
			out: &dynamodb.GetItemOutput{Item: sized(4097)}, units: 2, items: 1},
		{name: "eventually consistent get of a missing item", in: &dynamodb.GetItemInput{},
			out: &dynamodb.GetItemOutput{}, units: 0.5},
		{name: "query: the page's sizes added, then rounded", in: &dynamodb.QueryInput{},
			out:   &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{sized(3000), sized(3000), sized(3000)}},
			units: 1.5, items: 3},
		{name: "empty consistent query", in: &dynamodb.QueryInput{ConsistentRead: aws.Bool(true)},
			out: &dynamodb.QueryOutput{}, units: 1},
		{name: "batch get: every item rounded, missing keys cost the minimum", in: batchIn(false, 3),
			out: &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{
				table: {sized(100), sized(5000)}}}, units: 0.5 + 1 + 0.5, items: 2},
		{name: "a write is no read", in: &dynamodb.PutItemInput{}, out: &dynamodb.PutItemOutput{}, notARead: true},
	}
	for _, tt := range tests {
		units, items, ok := ddbmeter.ReadUnits(tt.in, tt.out)
		if ok == tt.notARead || units != tt.units || items != tt.items {
			t.Errorf("%s: %v units, %d items, read %v; want %v, %d", tt.name, units, items, ok, tt.units, tt.items)
		}
	}
}
