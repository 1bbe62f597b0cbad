package emulator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// keyedTable creates a table with a partition and a sort key and a GSI on "g"/"SK",
// as the service's table has.
func keyedTable(t *testing.T) (*dynamodb.Client, string) {
	t.Helper()
	ctx := context.Background()
	db := sharedClients(t).DynamoDB
	table := fmt.Sprintf("keyed-%d", time.Now().UnixNano())
	str := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}
	}
	key := func(hash, sort string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(sort), KeyType: types.KeyTypeRange}}
	}
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: &table, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{str("PK"), str("SK"), str("g")},
		KeySchema:            key("PK", "SK"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: key("g", "SK"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}); err != nil {
		t.Fatal(err)
	}
	return db, table
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func reversed(in []string) []string {
	out := slices.Clone(in)
	slices.Reverse(out)
	return out
}

// TestQueryOnItsPartition: motoserver.py makes a base-table Query start from its
// partition's items instead of the whole table. The answers must be what moto gave
// before: key conditions, order, filters, limits and paging over several partitions,
// and GSI queries (which keep moto's own path).
func TestQueryOnItsPartition(t *testing.T) {
	ctx := context.Background()
	db, table := keyedTable(t)
	for p := range 3 {
		var reqs []types.WriteRequest
		for i := range 20 {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"PK": s(fmt.Sprintf("P%d", p)), "SK": s(fmt.Sprintf("%s#%02d", []string{"A", "B"}[i%2], i)),
				"g": s(fmt.Sprintf("G%d", i%3)), "n": &types.AttributeValueMemberN{Value: fmt.Sprint(i)},
			}}})
		}
		for i := 0; i < len(reqs); i += 25 {
			if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{table: reqs[i:min(i+25, len(reqs))]}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	sks := func(n ...int) []string {
		var out []string
		for _, i := range n {
			out = append(out, fmt.Sprintf("%s#%02d", []string{"A", "B"}[i%2], i))
		}
		return out
	}
	evens, odds := sks(0, 2, 4, 6, 8, 10, 12, 14, 16, 18), sks(1, 3, 5, 7, 9, 11, 13, 15, 17, 19)
	tests := []struct {
		name   string
		in     dynamodb.QueryInput
		wantPK string
		want   []string
	}{
		{name: "whole partition", in: dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("P1")}},
			wantPK: "P1", want: append(slices.Clone(evens), odds...)},
		{name: "begins_with, descending", in: dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :p AND begins_with(SK, :b)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("P2"), ":b": s("B#")}, ScanIndexForward: aws.Bool(false)},
			wantPK: "P2", want: reversed(odds)},
		{name: "between with a filter", in: dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :p AND SK BETWEEN :lo AND :hi"),
			FilterExpression:          aws.String("n > :n"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("P0"), ":lo": s("A#04"), ":hi": s("A#12"), ":n": &types.AttributeValueMemberN{Value: "6"}}},
			wantPK: "P0", want: sks(8, 10, 12)},
		{name: "pages of three", in: dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :p AND begins_with(SK, :b)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("P0"), ":b": s("A#")}, Limit: aws.Int32(3)},
			wantPK: "P0", want: evens},
		{name: "an empty partition", in: dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("P9")}}},
		{name: "a GSI across partitions", in: dynamodb.QueryInput{IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g AND begins_with(SK, :b)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("G0"), ":b": s("A#0")}},
			want: []string{"A#00", "A#00", "A#00", "A#06", "A#06", "A#06"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = &table
			var got []string
			for page := 0; ; page++ {
				out, err := db.Query(ctx, &in)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range out.Items {
					if pk := it["PK"].(*types.AttributeValueMemberS).Value; tc.wantPK != "" && pk != tc.wantPK {
						t.Errorf("item of partition %s", pk)
					}
					got = append(got, it["SK"].(*types.AttributeValueMemberS).Value)
				}
				if out.LastEvaluatedKey == nil || page > 20 {
					break
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestItemSizeLimit: motoserver.py measures a new item once instead of once per
// attribute; the limit must hold as before, for one large attribute and for many.
func TestItemSizeLimit(t *testing.T) {
	ctx := context.Background()
	db, table := keyedTable(t)
	item := func(attrs, size int) map[string]types.AttributeValue {
		it := map[string]types.AttributeValue{"PK": s("P"), "SK": s(fmt.Sprint(attrs, "x", size))}
		for i := range attrs {
			it[fmt.Sprintf("a%03d", i)] = s(strings.Repeat("x", size/attrs))
		}
		return it
	}
	tests := []struct {
		name         string
		attrs, bytes int
		tooLarge     bool
	}{
		{"one attribute under the limit", 1, 390_000, false},
		{"one attribute over the limit", 1, 420_000, true},
		{"a hundred attributes under the limit", 100, 390_000, false},
		{"a hundred attributes over the limit", 100, 420_000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item(tc.attrs, tc.bytes)})
			var api smithy.APIError
			switch {
			case tc.tooLarge && !(errors.As(err, &api) && strings.Contains(api.ErrorMessage(), "Item size has exceeded")):
				t.Errorf("want the item size error, got %v", err)
			case !tc.tooLarge && err != nil:
				t.Errorf("want the item stored, got %v", err)
			}
			if err != nil {
				return
			}
			out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table,
				Key: map[string]types.AttributeValue{"PK": s("P"), "SK": item(tc.attrs, tc.bytes)["SK"]}})
			if err != nil || len(out.Item) != tc.attrs+2 {
				t.Errorf("read back %d attributes (err %v), want %d", len(out.Item), err, tc.attrs+2)
			}
		})
	}
}

// TestAttributeValuesRoundTrip: motoserver.py passes DynamoDB attribute values
// through moto's request parser and response serializer without walking their
// model, a whole item at once when none of its values is binary; every type must
// come back as it was written, nested ones included, from each kind of read.
func TestAttributeValuesRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, table := keyedTable(t)
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	values := map[string]types.AttributeValue{
		"s": s("héllo"), "empty": s(""), "json": s(`{"a":[1,2]}`), "n": n("-12.5"), "big": n("12345678901234567890"),
		"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 254, 255}}, "t": &types.AttributeValueMemberBOOL{Value: true},
		"f": &types.AttributeValueMemberBOOL{Value: false}, "null": &types.AttributeValueMemberNULL{Value: true},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, "ns": &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": n("1"), "l": &types.AttributeValueMemberL{
			Value: []types.AttributeValue{s("a"), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}, &types.AttributeValueMemberB{Value: []byte("z")}}}}},
		"l":      &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"nested": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberL{Value: []types.AttributeValue{n("7"), &types.AttributeValueMemberNULL{Value: true}}}}},
	}
	plain := maps.Clone(values)
	for _, binary := range []string{"b", "bs", "m"} {
		delete(plain, binary)
	}
	for i, tc := range []struct {
		name  string
		attrs map[string]types.AttributeValue
	}{{"with binary values", values}, {"plain values only", plain}} {
		key := map[string]types.AttributeValue{"PK": s("RT"), "SK": s(strconv.Itoa(i))}
		item := map[string]types.AttributeValue{"g": s("G")}
		maps.Copy(item, key)
		maps.Copy(item, tc.attrs)
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) { roundTrip(t, db, table, key, item) })
	}
}

// roundTrip reads item back by key with each kind of read.
func roundTrip(t *testing.T, db *dynamodb.Client, table string, key, item map[string]types.AttributeValue) {
	ctx := context.Background()
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	nested := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": n("1"),
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a"), &types.AttributeValueMemberB{Value: []byte("z")}}}}}
	reads := []struct {
		name string
		read func() (map[string]types.AttributeValue, error)
	}{
		{"GetItem", func() (map[string]types.AttributeValue, error) {
			out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key})
			return out.Item, err
		}},
		{"Query", func() (map[string]types.AttributeValue, error) {
			out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("PK = :p AND SK = :s"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": key["PK"], ":s": key["SK"]}})
			if err != nil || len(out.Items) != 1 {
				return nil, fmt.Errorf("%d items, %v", len(out.Items), err)
			}
			return out.Items[0], nil
		}},
		{"BatchGetItem", func() (map[string]types.AttributeValue, error) {
			out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				table: {Keys: []map[string]types.AttributeValue{key}}}})
			if err != nil || len(out.Responses[table]) != 1 {
				return nil, fmt.Errorf("%d items, %v", len(out.Responses[table]), err)
			}
			return out.Responses[table][0], nil
		}},
		{"UpdateItem ALL_NEW with a nested value", func() (map[string]types.AttributeValue, error) {
			out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key,
				UpdateExpression: aws.String("SET updated = :m"), ConditionExpression: aws.String("n = :n"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":m": nested, ":n": item["n"]},
				ReturnValues:              types.ReturnValueAllNew})
			if err == nil && !reflect.DeepEqual(out.Attributes["updated"], nested) {
				err = fmt.Errorf("updated: got %#v, want %#v", out.Attributes["updated"], nested)
			}
			delete(out.Attributes, "updated")
			return out.Attributes, err
		}},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			got, err := r.read()
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range item {
				if !reflect.DeepEqual(got[name], want) {
					t.Errorf("%s: got %#v, want %#v", name, got[name], want)
				}
			}
			if len(got) != len(item) {
				t.Errorf("got %d attributes, want %d", len(got), len(item))
			}
		})
	}
}
