package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/keys"
)

// TestCheckSeriesReportsACorruptedItem imports a portfolio, lets the workers compute
// its series, and runs check-series: no difference. Then one number of one stored
// month item of the "all" series is changed behind the service's back: check-series
// fails and names exactly that number, with the stored and the expected value.
func TestCheckSeriesReportsACorruptedItem(t *testing.T) {
	te := testenv.New(t)
	acc := te.NewAccount(t, "Checked")
	importPortfolio(t, te, acc.ID)
	te.DrainWorkers(t)
	e := env{store: te.Deps.Store}
	if out, err := runCmd(t, e, "check-series", "-account", acc.ID); err != nil || out["ok"] != true || out["customers"] != 3.0 {
		t.Fatalf("check-series on a healthy account: %v %v", out, err)
	}

	ctx := context.Background()
	db := te.Deps.Clients.DynamoDB
	// The January month item of the all series in one of its shards.
	var got *dynamodb.GetItemOutput
	month := keys.Key{SK: keys.SeriesMonthSK("2024-01")}
	for shard := 0; shard < keys.SeriesShards && (got == nil || got.Item == nil); shard++ {
		month.PK = keys.SeriesShardPartition(acc.ID, "all", shard)
		var err error
		got, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &te.TableName, ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{keys.PK: &types.AttributeValueMemberS{Value: month.PK}, keys.SK: &types.AttributeValueMemberS{Value: month.SK}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got.Item == nil {
		t.Fatal("no shard of the all series has a January month item")
	}
	n01, _ := got.Item["n01"].(*types.AttributeValueMemberN)
	if n01 == nil {
		t.Fatalf("no new business on 1 January in %v", got.Item)
	}
	stored, err := strconv.ParseInt(n01.Value, 10, 64)
	if err != nil {
		t.Fatalf("new business on 1 January: %v", got.Item)
	}
	got.Item["n01"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(stored+7, 10)}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &te.TableName, Item: got.Item}); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	e.stdout = &out
	err = commands["check-series"](ctx, e, []string{"-account", acc.ID})
	if err == nil {
		t.Fatalf("check-series accepted a corrupted series:\n%s", out.String())
	}
	var report struct {
		OK          bool     `json:"ok"`
		Differences []string `json:"differences"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatal(err)
	}
	want := "segment all item " + month.SK + " attribute n01: stored " + strconv.FormatInt(stored+7, 10) +
		", customers add up to " + strconv.FormatInt(stored, 10)
	if report.OK || len(report.Differences) != 1 || report.Differences[0] != want {
		t.Fatalf("check-series reported %+v (%v), want exactly %q", report, err, want)
	}
	if !strings.Contains(err.Error(), "1 numbers differ") {
		t.Errorf("error %v", err)
	}
	t.Logf("check-series found: %s", report.Differences[0])
}

// TestCheckSeriesFoldsTheBulkShards: a number of the "all" series moved from the read
// copy into a bulk shard (as the layout that spread every customer over the shards left
// them) is still the customers' sum, but metrics requests do not see it: check-series
// says so without -fold, folds it into the read copy with -fold, and is then clean.
func TestCheckSeriesFoldsTheBulkShards(t *testing.T) {
	te := testenv.New(t)
	acc := te.NewAccount(t, "Folded")
	importPortfolio(t, te, acc.ID)
	te.DrainWorkers(t)
	ctx := context.Background()
	db := te.Deps.Clients.DynamoDB
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	add := func(shard int, n int64) {
		t.Helper()
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &te.TableName,
			Key:              map[string]types.AttributeValue{keys.PK: s(keys.SeriesShardPartition(acc.ID, "all", shard)), keys.SK: s(keys.SeriesMonthSK("2024-01"))},
			UpdateExpression: aws.String("SET et = :et ADD n01 :n"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":et": s(keys.TypeSeriesMonth),
				":n": &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}}}); err != nil {
			t.Fatal(err)
		}
	}
	add(0, -500)
	add(5, 500)
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &te.TableName, Item: map[string]types.AttributeValue{
		keys.PK: s(keys.SeriesShardPartition(acc.ID, "all", 5)), keys.SK: s(keys.SeriesIndexSK), "et": s(keys.TypeSeriesIndex)}}); err != nil {
		t.Fatal(err)
	}
	var printed bytes.Buffer
	e := env{store: te.Deps.Store, stdout: &printed}
	err := commands["check-series"](ctx, e, []string{"-account", acc.ID})
	var out map[string]any
	if jerr := json.Unmarshal(printed.Bytes(), &out); jerr != nil {
		t.Fatal(jerr)
	}
	if err == nil || out["ok"] != false || out["numbers_not_folded"] == 0.0 || len(out["differences"].([]any)) != 0 {
		t.Fatalf("check-series before the fold: %v %v", out, err)
	}
	if out, err := runCmd(t, e, "check-series", "-account", acc.ID, "-fold"); err != nil || out["ok"] != true || out["numbers_not_folded"] != 0.0 {
		t.Fatalf("check-series -fold: %v %v", out, err)
	}
}
