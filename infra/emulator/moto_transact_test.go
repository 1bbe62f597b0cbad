package emulator

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TestTransactWriteItems: motoserver.py checks every condition of a transaction
// before it writes and keeps copies of the touched items only, instead of moto's
// copy of the whole table. What a transaction leaves behind and the errors it
// returns must be what DynamoDB (and moto) give: all or nothing, a reason per
// operation, the old item when asked for, and a validation error that fails
// half-way restoring what the operations before it wrote.
func TestTransactWriteItems(t *testing.T) {
	ctx := context.Background()
	db, table := keyedTable(t)
	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(pk), "SK": s("x")}
	}
	item := func(pk, v string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(pk), "SK": s("x"), "g": s("G"), "v": s(v)}
	}
	put := func(pk, v string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: &table, Item: item(pk, v)}}
	}
	putNew := func(pk, v string) types.TransactWriteItem {
		p := put(pk, v)
		p.Put.ConditionExpression = aws.String("attribute_not_exists(PK)")
		p.Put.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		return p
	}
	update := func(pk, expr string, values map[string]types.AttributeValue) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{TableName: &table, Key: key(pk), UpdateExpression: aws.String(expr),
			ExpressionAttributeValues: values}}
	}
	value := func(pk string) string {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key(pk), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if out.Item == nil {
			return "<none>"
		}
		return out.Item["v"].(*types.AttributeValueMemberS).Value
	}
	if _, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		put("held", "old"), put("gone", "old"), put("kept", "old")}}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		items   []types.TransactWriteItem
		reasons []string // cancellation reasons; nil: the transaction succeeds
		invalid bool     // a ValidationException instead of a cancellation
		want    map[string]string
	}{
		{name: "every kind of operation",
			items: []types.TransactWriteItem{putNew("new1", "a"),
				update("kept", "SET v = :v", map[string]types.AttributeValue{":v": s("updated")}),
				{Delete: &types.Delete{TableName: &table, Key: key("gone")}},
				{ConditionCheck: &types.ConditionCheck{TableName: &table, Key: key("held"), ConditionExpression: aws.String("v = :v"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("old")}}}},
			want: map[string]string{"new1": "a", "kept": "updated", "gone": "<none>", "held": "old"}},
		{name: "a failed condition writes nothing",
			items:   []types.TransactWriteItem{putNew("new2", "b"), update("kept", "SET v = :v", map[string]types.AttributeValue{":v": s("lost")}), putNew("held", "c")},
			reasons: []string{"None", "None", "ConditionalCheckFailed"},
			want:    map[string]string{"new2": "<none>", "kept": "updated", "held": "old"}},
		{name: "a condition check that fails",
			items: []types.TransactWriteItem{putNew("new3", "d"),
				{ConditionCheck: &types.ConditionCheck{TableName: &table, Key: key("gone"), ConditionExpression: aws.String("attribute_exists(PK)")}}},
			reasons: []string{"None", "ConditionalCheckFailed"},
			want:    map[string]string{"new3": "<none>"}},
		{name: "a type error while applying restores the earlier writes",
			items: []types.TransactWriteItem{putNew("new4", "e"),
				update("kept", "SET v = :v", map[string]types.AttributeValue{":v": s("lost")}),
				update("held", "ADD v :n", map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "1"}})},
			invalid: true,
			want:    map[string]string{"new4": "<none>", "kept": "updated", "held": "old"}},
		{name: "two operations on one item",
			items:   []types.TransactWriteItem{putNew("new5", "f"), update("new5", "SET v = :v", map[string]types.AttributeValue{":v": s("g")})},
			invalid: true,
			want:    map[string]string{"new5": "<none>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tc.items})
			var cancelled *types.TransactionCanceledException
			var api smithy.APIError
			switch {
			case tc.invalid:
				if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" {
					t.Fatalf("want a ValidationException, got %v", err)
				}
			case tc.reasons == nil:
				if err != nil {
					t.Fatal(err)
				}
			case !errors.As(err, &cancelled):
				t.Fatalf("want a cancellation, got %v", err)
			default:
				var codes []string
				for i, r := range cancelled.CancellationReasons {
					codes = append(codes, aws.ToString(r.Code))
					if aws.ToString(r.Code) == "ConditionalCheckFailed" && tc.items[i].Put != nil &&
						(r.Item == nil || r.Item["v"].(*types.AttributeValueMemberS).Value != "old") {
						t.Errorf("reason %d: want the old item, got %v", i, r.Item)
					}
				}
				if strings.Join(codes, ",") != strings.Join(tc.reasons, ",") {
					t.Errorf("reasons %v, want %v", codes, tc.reasons)
				}
			}
			for pk, want := range tc.want {
				if got := value(pk); got != want {
					t.Errorf("%s: %q, want %q", pk, got, want)
				}
			}
		})
	}
}

// TestConditionsOfOneExpression: motoserver.py keeps a parsed condition for an equal
// expression with equal names and values. The same expression text with other values
// or names must be judged on its own, alone and in a transaction, and after it the
// first form again as before.
func TestConditionsOfOneExpression(t *testing.T) {
	ctx := context.Background()
	db, table := keyedTable(t)
	item := map[string]types.AttributeValue{"PK": s("cond"), "SK": s("x"), "v": s("a"), "w": s("b")}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
		t.Fatal(err)
	}
	const expr = "attribute_exists(PK) AND #f = :v"
	tests := []struct {
		name, field, value string
		holds              bool
	}{
		{"v is a", "v", "a", true},
		{"v is b", "v", "b", false},
		{"w is b", "w", "b", true},
		{"w is a", "w", "a", false},
		{"v is a, again", "v", "a", true},
		{"no such attribute", "z", "a", false},
	}
	for _, tc := range tests {
		names := map[string]string{"#f": tc.field}
		values := map[string]types.AttributeValue{":v": s(tc.value)}
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item,
				ConditionExpression: aws.String(expr), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
			var failed *types.ConditionalCheckFailedException
			if tc.holds != (err == nil) || (err != nil && !errors.As(err, &failed)) {
				t.Errorf("PutItem: %v, want the condition to hold: %v", err, tc.holds)
			}
			_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{ConditionCheck: &types.ConditionCheck{TableName: &table, Key: map[string]types.AttributeValue{"PK": s("cond"), "SK": s("x")},
					ConditionExpression: aws.String(expr), ExpressionAttributeNames: names, ExpressionAttributeValues: values}},
				{Put: &types.Put{TableName: &table, Item: map[string]types.AttributeValue{"PK": s("other"), "SK": s(tc.name)}}}}})
			var canceled *types.TransactionCanceledException
			if tc.holds != (err == nil) || (err != nil && !errors.As(err, &canceled)) {
				t.Errorf("TransactWriteItems: %v, want the condition to hold: %v", err, tc.holds)
			}
		})
	}
}
