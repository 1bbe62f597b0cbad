package ddbmeter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
)

// TestWritesBilledAsDynamoDBBillsThem runs a sequence of writes on one item (1.5 KB,
// two units a write, held by GSI1) and checks what the recorders charge for each: the
// larger of the item before and after, conditional writes that fail, a cancelled
// transaction, and an update that moves the item between two GSI1 partitions (a
// delete from one, a put into the other).
func TestWritesBilledAsDynamoDBBillsThem(t *testing.T) {
	env := testenv.New(t)
	var heat ddbmeter.Heat
	var writes ddbmeter.WriteRecorder
	cfg := env.AWS.Copy()
	heat.Attach(&cfg)
	writes.Attach(&cfg)
	db := dynamodb.NewFromConfig(cfg)
	ctx := context.Background()
	table := env.TableName
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(pk), "SK": s("item")}
	}
	big := func(pk, index string) map[string]types.AttributeValue {
		item := key(pk)
		item["GSI1PK"], item["GSI1SK"], item["pad"] = s(index), s("1"), s(strings.Repeat("x", 1500))
		return item
	}
	moveTo := func(index string) *dynamodb.UpdateItemInput {
		return &dynamodb.UpdateItemInput{TableName: &table, Key: key("a"), UpdateExpression: aws.String("SET GSI1PK = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(index)}}
	}
	steps := []struct {
		name    string
		do      func() error
		failed  bool
		charged map[string]float64 // partition -> units of this step
	}{
		{name: "put of a new 1.5 KB item held by GSI1",
			do: func() error {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: big("a", "p1")})
				return err
			},
			charged: map[string]float64{"table a": 2, "GSI1 p1": 2}},
		{name: "update that moves it to another GSI1 partition: a delete there, a put here",
			do:      func() error { _, err := db.UpdateItem(ctx, moveTo("p2")); return err },
			charged: map[string]float64{"table a": 2, "GSI1 p1": 2, "GSI1 p2": 2}},
		{name: "update that changes nothing: the table write only",
			do:      func() error { _, err := db.UpdateItem(ctx, moveTo("p2")); return err },
			charged: map[string]float64{"table a": 2}},
		{name: "conditional put that fails: the larger of the stored and the sent item, no index",
			do: func() error {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: key("a"),
					ConditionExpression: aws.String("attribute_not_exists(PK)")})
				return err
			},
			failed: true, charged: map[string]float64{"table a": 2}},
		{name: "cancelled transaction: the first of two phases of each item",
			do: func() error {
				_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: &table, Item: key("b")}},
					{ConditionCheck: &types.ConditionCheck{TableName: &table, Key: key("a"), ConditionExpression: aws.String("attribute_not_exists(PK)")}},
				}})
				return err
			},
			failed: true, charged: map[string]float64{"table a": 2, "table b": 1}},
		{name: "committed transaction: twice, indexes included",
			do: func() error {
				_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: &table, Item: big("b", "p3")}},
					{ConditionCheck: &types.ConditionCheck{TableName: &table, Key: key("a"), ConditionExpression: aws.String("attribute_exists(PK)")}},
				}})
				return err
			},
			charged: map[string]float64{"table a": 4, "table b": 4, "GSI1 p3": 4}},
		{name: "put of a small item over the large one: the larger, and its index entry deleted",
			do: func() error {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: key("a")})
				return err
			},
			charged: map[string]float64{"table a": 2, "GSI1 p2": 2}},
		{name: "delete of an absent item: one unit",
			do: func() error {
				_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: key("c")})
				return err
			},
			charged: map[string]float64{"table c": 1}},
	}
	before := map[string]float64{}
	total := 0.0
	for _, st := range steps {
		err := st.do()
		var failed *types.ConditionalCheckFailedException
		var canceled *types.TransactionCanceledException
		if st.failed != (errors.As(err, &failed) || errors.As(err, &canceled)) || (!st.failed && err != nil) {
			t.Fatalf("%s: error %v", st.name, err)
		}
		now := map[string]float64{}
		for _, p := range heat.Report(1, time.Second).Partitions {
			now[p.Partition] = p.WCU
		}
		step := 0.0
		for p := range now {
			if got := now[p] - before[p]; got != st.charged[p] {
				t.Errorf("%s: %s charged %v, want %v", st.name, p, got, st.charged[p])
			}
		}
		for p, want := range st.charged {
			if _, ok := now[p]; !ok {
				t.Errorf("%s: %s charged nothing, want %v", st.name, p, want)
			}
			step += want
		}
		total += step
		if got := writes.Units(); got != total {
			t.Errorf("%s: the write recorder counts %v in all, want %v", st.name, got, total)
		}
		before = now
	}
}
