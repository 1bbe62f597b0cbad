package ddbmeter_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
)

// TestHeatPerPartitionAndItem writes one item held by GSI1 with a put, updates it in a
// transaction, reads its partition with a Query, and checks the heat of the table's
// partition, of the GSI partition and of the item, and the projection for two units
// of work.
func TestHeatPerPartitionAndItem(t *testing.T) {
	env := testenv.New(t)
	var heat ddbmeter.Heat
	cfg := env.AWS.Copy()
	heat.Attach(&cfg)
	db := dynamodb.NewFromConfig(cfg)
	ctx := context.Background()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	table := env.TableName
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
		"PK": s("hot"), "SK": s("item"), "GSI1PK": s("hot-index"), "GSI1SK": s("1"), "pad": s(strings.Repeat("x", 1500))}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
		TableName: &table, Key: map[string]types.AttributeValue{"PK": s("hot"), "SK": s("item")},
		UpdateExpression: aws.String("SET n = :n"), ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "1"}}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query(ctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s("hot")}}); err != nil {
		t.Fatal(err)
	}
	rep, err := heat.Report(ctx, dynamodb.NewFromConfig(env.AWS), table, 2, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]ddbmeter.PartitionHeat{}
	for _, p := range rep.Partitions {
		parts[p.Partition] = p
	}
	// 1.5 KB: 2 units per write, twice in the transaction; the query reads 0.5 (eventually consistent).
	if p := parts["table hot"]; p.WCU != 6 || p.RCU != 0.5 || p.WCUPerUnit != 3 || p.PeakWCU != 6 {
		t.Errorf("table partition %+v", p)
	}
	if p := parts["GSI1 hot-index"]; p.WCU != 6 {
		t.Errorf("GSI1 partition %+v", p)
	}
	if len(rep.Items) != 1 || rep.Items[0].Transactions != 1 || rep.Items[0].TransactionsPerUnit != 0.5 {
		t.Errorf("items %+v", rep.Items)
	}
	// Transactions: 40 per second on the item / 0.5 per unit = 80 units/s, below
	// 1,000 WCU / 3 per unit.
	if rep.Projected != 80 || !strings.HasPrefix(rep.Limits[0].What, "transactions on hot | item") {
		t.Errorf("projected %v by %+v", rep.Projected, rep.Limits)
	}
	t.Log(rep.Table(5))
}
