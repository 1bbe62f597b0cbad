package table

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
)

// The two conditions most writes carry: the item is there (an update or delete of
// something that must exist) or it is not (a put that must not overwrite).
const (
	ItemExists = "attribute_exists(PK)"
	ItemAbsent = "attribute_not_exists(PK)"
)

// WriteConcurrency bounds the parallel writes of one call: an import batch claims its
// customers' external ids with hundreds of conditional PutItems, which run this many at
// once (the SDK client keeps as many connections: awsclients.MaxParallelRequests), so
// that they cost a few round trips rather than one each.
const WriteConcurrency = awsclients.MaxParallelRequests

// KeyAttrs is key k in the table's encoding.
func KeyAttrs(k keys.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		keys.PK: &types.AttributeValueMemberS{Value: k.PK},
		keys.SK: &types.AttributeValueMemberS{Value: k.SK},
	}
}

// SAttr is a string attribute.
func SAttr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// NAttr is a number attribute.
func NAttr(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// StringAttr is a string attribute of an item ("" when absent or not a string).
func StringAttr(item map[string]types.AttributeValue, name string) string {
	if sv, ok := item[name].(*types.AttributeValueMemberS); ok {
		return sv.Value
	}
	return ""
}

// PutNew writes item only if no item with its key exists. When the SDK retries a
// request whose first attempt was applied but whose answer was lost, the retry finds
// the item already there: if the stored item is exactly this one, the write is done.
func (t *Table) PutNew(ctx context.Context, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	return t.PutNewAttrs(ctx, av)
}

// PutNewAttrs is PutNew of an item already in the table's encoding.
func (t *Table) PutNewAttrs(ctx context.Context, av map[string]types.AttributeValue) error {
	_, err := t.PutItem(ctx, &dynamodb.PutItemInput{
		Item:                                av,
		ConditionExpression:                 aws.String(ItemAbsent),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && reflect.DeepEqual(ccf.Item, av) {
		return nil
	}
	return Conflict(err)
}

// Put writes item, replacing any item with its key.
func (t *Table) Put(ctx context.Context, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	_, err = t.PutItem(ctx, &dynamodb.PutItemInput{Item: av})
	return err
}

// Get reads one item into out; ErrNotFound when absent.
func (t *Table) Get(ctx context.Context, k keys.Key, out any) error {
	res, err := t.GetItem(ctx, &dynamodb.GetItemInput{Key: KeyAttrs(k), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return err
	}
	if res.Item == nil {
		return store.ErrNotFound
	}
	return attributevalue.UnmarshalMap(res.Item, out)
}

// GetOne reads the item at k (store.ErrNotFound when there is none) and converts it.
func GetOne[I, T any](ctx context.Context, t *Table, k keys.Key, convert func(I) T) (T, error) {
	var it I
	if err := t.Get(ctx, k, &it); err != nil {
		var zero T
		return zero, err
	}
	return convert(it), nil
}

// QueryPrefix reads every item of a partition whose sort key starts with prefix.
func (t *Table) QueryPrefix(ctx context.Context, pk, prefix string, out any) error {
	in := &dynamodb.QueryInput{
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: pk},
			":p":  &types.AttributeValueMemberS{Value: prefix},
		},
		ConsistentRead: aws.Bool(true),
	}
	items, err := t.QueryAll(ctx, in)
	if err != nil {
		return err
	}
	return attributevalue.UnmarshalListOfMaps(items, out)
}

// QueryAll runs a Query to its end and returns every item it read.
func (t *Table) QueryAll(ctx context.Context, in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	err := t.QueryPages(ctx, in, func(page []map[string]types.AttributeValue) error {
		items = append(items, page...)
		return nil
	})
	return items, err
}

// QueryPages runs a Query to its end and hands each response's items to f.
func (t *Table) QueryPages(ctx context.Context, in *dynamodb.QueryInput, f func([]map[string]types.AttributeValue) error) error {
	p := dynamodb.NewQueryPaginator(t, in)
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

// NotFoundOnCondition turns a failed condition into ErrNotFound: the condition of a
// write that needs its item there.
func NotFoundOnCondition(err error) error {
	if errors.Is(Conflict(err), store.ErrConflict) {
		return store.ErrNotFound
	}
	return err
}

// GetMany reads items by uuid (one BatchGetItem per 100, duplicates asked once) and
// returns them converted, keyed by uuid; missing ones are absent from the map.
func GetMany[I, T any](ctx context.Context, t *Table, uuids []string, key func(string) keys.Key,
	uuidOf func(I) string, convert func(I) T) (map[string]T, error) {
	seen := map[string]bool{}
	var keyList []map[string]types.AttributeValue
	for _, u := range uuids {
		if !seen[u] {
			seen[u] = true
			keyList = append(keyList, KeyAttrs(key(u)))
		}
	}
	raw, err := t.BatchGet(ctx, keyList)
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

// BatchGet reads items by key with consistent reads, 100 at a time, retrying
// unprocessed keys.
func (t *Table) BatchGet(ctx context.Context, keyList []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	return t.BatchRead(ctx, keyList, true)
}

// BatchRead is BatchGet, with eventually consistent reads unless consistent.
func (t *Table) BatchRead(ctx context.Context, keyList []map[string]types.AttributeValue, consistent bool) ([]map[string]types.AttributeValue, error) {
	return t.BatchReadAttrs(ctx, keyList, consistent, nil)
}

// BatchReadAttrs is BatchRead returning only the attributes attrs (every attribute
// when none): less to transfer and decode, the same read units.
func (t *Table) BatchReadAttrs(ctx context.Context, keyList []map[string]types.AttributeValue, consistent bool,
	attrs []string) ([]map[string]types.AttributeValue, error) {
	var projection *string
	var names map[string]string
	if len(attrs) > 0 {
		names = map[string]string{}
		refs := make([]string, len(attrs))
		for i, a := range attrs {
			refs[i] = fmt.Sprintf("#p%d", i)
			names[refs[i]] = a
		}
		projection = aws.String(strings.Join(refs, ", "))
	}
	var out []map[string]types.AttributeValue
	for start := 0; start < len(keyList); start += 100 {
		pending := map[string]types.KeysAndAttributes{t.name: {Keys: keyList[start:min(start+100, len(keyList))],
			ConsistentRead: aws.Bool(consistent), ProjectionExpression: projection, ExpressionAttributeNames: names}}
		for attempt := 0; len(pending[t.name].Keys) > 0; attempt++ {
			if attempt == MaxAttempts {
				return nil, fmt.Errorf("batch get: keys still unprocessed after %d attempts", MaxAttempts)
			}
			if attempt > 0 {
				if err := Pause(ctx, attempt); err != nil {
					return nil, err
				}
			}
			res, err := t.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending, ReturnConsumedCapacity: consumed})
			if err != nil {
				return nil, err
			}
			out = append(out, res.Responses[t.name]...)
			pending = res.UnprocessedKeys
		}
	}
	return out, nil
}

// BatchWrite runs write requests (puts and deletes) 25 at a time, BatchWriteItem's
// limit, retrying unprocessed ones.
func (t *Table) BatchWrite(ctx context.Context, reqs []types.WriteRequest) error {
	for start := 0; start < len(reqs); start += 25 {
		pending := map[string][]types.WriteRequest{t.name: reqs[start:min(start+25, len(reqs))]}
		for attempt := 0; len(pending[t.name]) > 0; attempt++ {
			if attempt == MaxAttempts {
				return fmt.Errorf("batch write: items still unprocessed after %d attempts", MaxAttempts)
			}
			if attempt > 0 {
				if err := Pause(ctx, attempt); err != nil {
					return err
				}
			}
			out, err := t.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending, ReturnConsumedCapacity: consumed})
			if err != nil {
				return err
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

// BatchDelete deletes items by key, 25 per request.
func (t *Table) BatchDelete(ctx context.Context, keyItems []map[string]types.AttributeValue) error {
	reqs := make([]types.WriteRequest, len(keyItems))
	for i, k := range keyItems {
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
	}
	return t.BatchWrite(ctx, reqs)
}

// PutItemsBatched marshals items and writes them 25 per BatchWriteItem, the requests
// in parallel (bounded by WriteConcurrency).
func (t *Table) PutItemsBatched(ctx context.Context, items []any) error {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		av, err := attributevalue.MarshalMap(it)
		if err != nil {
			return err
		}
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: av}}
	}
	chunks := (len(reqs) + 24) / 25
	errs := make([]error, chunks)
	parallel.For(chunks, WriteConcurrency, func(i int) {
		errs[i] = t.BatchWrite(ctx, reqs[i*25:min((i+1)*25, len(reqs))])
	})
	return errors.Join(errs...)
}
