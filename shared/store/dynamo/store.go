// Package dynamo is the DynamoDB implementation of the storage contract (package
// store): it maps domain types to items of the single table (keys come from package
// keys) and back. Only the wiring builds it.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
)

// Store reads and writes the single table.
type Store struct {
	db    *dynamodb.Client
	table string
	now   func() time.Time
}

var _ store.Store = (*Store)(nil)

// New returns a store on table.

// The two conditions most writes carry: the item is there (an update or delete of
// something that must exist) or it is not (a put that must not overwrite).
const (
	itemExists = "attribute_exists(PK)"
	itemAbsent = "attribute_not_exists(PK)"
)

func New(db *dynamodb.Client, table string, now func() time.Time) *Store {
	return &Store{db: db, table: table, now: now}
}

func keyAttrs(k keys.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		keys.PK: &types.AttributeValueMemberS{Value: k.PK},
		keys.SK: &types.AttributeValueMemberS{Value: k.SK},
	}
}

// putNew writes item only if no item with its key exists. When the SDK retries a
// request whose first attempt was applied but whose answer was lost, the retry finds
// the item already there: if the stored item is exactly this one, the write is done.
func (s *Store) putNew(ctx context.Context, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	return s.putNewAttrs(ctx, av)
}

// putNewAttrs is putNew of an item already in the table's encoding.
func (s *Store) putNewAttrs(ctx context.Context, av map[string]types.AttributeValue) error {
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &s.table,
		Item:                                av,
		ConditionExpression:                 aws.String(itemAbsent),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		ReturnConsumedCapacity:              types.ReturnConsumedCapacityTotal,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && reflect.DeepEqual(ccf.Item, av) {
		return nil
	}
	return conflict(err)
}

func (s *Store) put(ctx context.Context, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: av, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	return err
}

// get reads one item into out; ErrNotFound when absent.
func (s *Store) get(ctx context.Context, k keys.Key, out any) error {
	res, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: keyAttrs(k), ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return err
	}
	if res.Item == nil {
		return store.ErrNotFound
	}
	return attributevalue.UnmarshalMap(res.Item, out)
}

// getOne reads the item at k (store.ErrNotFound when there is none) and converts it.
func getOne[I, T any](ctx context.Context, s *Store, k keys.Key, convert func(I) T) (T, error) {
	var it I
	if err := s.get(ctx, k, &it); err != nil {
		var zero T
		return zero, err
	}
	return convert(it), nil
}

// queryPrefix reads every item of a partition whose sort key starts with prefix.
func (s *Store) queryPrefix(ctx context.Context, pk, prefix string, out any) error {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: pk},
			":p":  &types.AttributeValueMemberS{Value: prefix},
		},
		ConsistentRead:         aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	items, err := s.queryAll(ctx, in)
	if err != nil {
		return err
	}
	return attributevalue.UnmarshalListOfMaps(items, out)
}

// queryAll runs a Query to its end and returns every item it read.
func (s *Store) queryAll(ctx context.Context, in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	err := s.queryPages(ctx, in, func(page []map[string]types.AttributeValue) error {
		items = append(items, page...)
		return nil
	})
	return items, err
}

// queryPages runs a Query to its end and hands each response's items to f.
func (s *Store) queryPages(ctx context.Context, in *dynamodb.QueryInput, f func([]map[string]types.AttributeValue) error) error {
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		if err := f(page.Items); err != nil {
			return err
		}
	}
	return nil
}

func notFoundOnCondition(err error) error {
	if errors.Is(conflict(err), store.ErrConflict) {
		return store.ErrNotFound
	}
	return err
}

// getMany reads items by uuid (one BatchGetItem per 100, duplicates asked once) and
// returns them converted, keyed by uuid; missing ones are absent from the map.
func getMany[I, T any](ctx context.Context, s *Store, uuids []string, key func(string) keys.Key,
	uuidOf func(I) string, convert func(I) T) (map[string]T, error) {
	seen := map[string]bool{}
	var keyList []map[string]types.AttributeValue
	for _, u := range uuids {
		if !seen[u] {
			seen[u] = true
			keyList = append(keyList, keyAttrs(key(u)))
		}
	}
	raw, err := s.batchGet(ctx, keyList)
	if err != nil {
		return nil, err
	}
	var items []I
	if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
		return nil, err
	}
	out := make(map[string]T, len(items))
	for _, it := range items {
		out[uuidOf(it)] = convert(it)
	}
	return out, nil
}

// batchWrite runs write requests (puts and deletes) 25 at a time, BatchWriteItem's
// limit, retrying unprocessed ones.
func (s *Store) batchWrite(ctx context.Context, reqs []types.WriteRequest) error {
	for start := 0; start < len(reqs); start += 25 {
		pending := map[string][]types.WriteRequest{s.table: reqs[start:min(start+25, len(reqs))]}
		for attempt := 0; len(pending[s.table]) > 0; attempt++ {
			if attempt == maxAttempts {
				return fmt.Errorf("batch write: items still unprocessed after %d attempts", maxAttempts)
			}
			if attempt > 0 {
				if err := pause(ctx, attempt); err != nil {
					return err
				}
			}
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: pending, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			})
			if err != nil {
				return err
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

// batchDelete deletes items by key, 25 per request.
func (s *Store) batchDelete(ctx context.Context, keyItems []map[string]types.AttributeValue) error {
	reqs := make([]types.WriteRequest, len(keyItems))
	for i, k := range keyItems {
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
	}
	return s.batchWrite(ctx, reqs)
}
