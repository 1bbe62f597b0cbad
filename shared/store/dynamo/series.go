package dynamo

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
)

// The account series: package accountseries computes them and describes its storage
// needs (accountseries.Storage); this file and activities.go implement them.
// docs/metrics-api.md describes the layout: per segment one partition of bucket items,
// numbers that customers only ever add to; per customer a record of what it added.

// SeriesStorage is the store's adapter for the account series: what they keep
// (accountseries.Storage) and nothing else of the store.
type SeriesStorage struct{ store *Store }

var _ accountseries.Storage = SeriesStorage{}

// Series is the adapter of the account series on this store.
func (s *Store) Series() accountseries.Storage { return SeriesStorage{store: s} }

// GetAccount reads the account (its calendar).
func (ss SeriesStorage) GetAccount(ctx context.Context, accountID string) (model.Account, error) {
	return ss.store.GetAccount(ctx, accountID)
}

// GetSeriesRecord reads a customer's record; a record with Exists false when there is
// none.
func (ss SeriesStorage) GetSeriesRecord(ctx context.Context, accountID, customerUUID string) (accountseries.Applied, error) {
	s := ss.store
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: keyAttrs(keys.SeriesApplied(accountID, customerUUID)),
		ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil || out.Item == nil {
		return accountseries.Applied{Cells: accountseries.Cells{}}, err
	}
	return decodeSeriesRecord(out.Item)
}

func decodeSeriesRecord(item map[string]types.AttributeValue) (accountseries.Applied, error) {
	r := accountseries.Applied{Exists: true, Cells: accountseries.Cells{}, Pending: map[string][]accountseries.BucketAdd{},
		Acts: map[string]string{}, ActsPrev: map[string]string{}}
	if v, ok := item["v"].(*types.AttributeValueMemberS); ok {
		r.Version = v.Value
	}
	if v, ok := item["acts_done"].(*types.AttributeValueMemberBOOL); ok {
		r.ActsDone = v.Value
	}
	if v, ok := item["cells"].(*types.AttributeValueMemberB); ok {
		if err := ungz(v.Value, &r.Cells); err != nil {
			return r, fmt.Errorf("series record: cells: %w", err)
		}
	}
	if v, ok := item["pend"].(*types.AttributeValueMemberM); ok {
		for id, c := range v.Value {
			b, ok := c.(*types.AttributeValueMemberB)
			if !ok {
				continue
			}
			var adds []accountseries.BucketAdd
			if err := ungz(b.Value, &adds); err != nil {
				return r, fmt.Errorf("series record: pending chunk: %w", err)
			}
			r.Pending[id] = adds
		}
	}
	for attr, m := range map[string]map[string]string{"acts": r.Acts, "acts_prev": r.ActsPrev} {
		if v, ok := item[attr].(*types.AttributeValueMemberB); ok {
			if err := ungz(v.Value, &m); err != nil {
				return r, fmt.Errorf("series record: %s: %w", attr, err)
			}
		}
	}
	return r, nil
}

func encodeSeriesRecord(accountID, customerUUID string, r accountseries.Applied) (map[string]types.AttributeValue, error) {
	item := keyAttrs(keys.SeriesApplied(accountID, customerUUID))
	item[keys.EntityType] = sAttr(keys.TypeSeriesApplied)
	item["v"] = sAttr(r.Version)
	item["acts_done"] = &types.AttributeValueMemberBOOL{Value: r.ActsDone}
	pend := map[string]types.AttributeValue{}
	for id, adds := range r.Pending {
		b, err := gz(adds)
		if err != nil {
			return nil, err
		}
		pend[id] = &types.AttributeValueMemberB{Value: b}
	}
	item["pend"] = &types.AttributeValueMemberM{Value: pend}
	for attr, v := range map[string]any{"cells": r.Cells, "acts": r.Acts, "acts_prev": r.ActsPrev} {
		b, err := gz(v)
		if err != nil {
			return nil, err
		}
		item[attr] = &types.AttributeValueMemberB{Value: b}
	}
	return item, nil
}

// ReplaceSeriesRecord writes next over old, only if nobody changed the record since
// old was read and no chunk of old is still pending; ErrConflict otherwise.
func (ss SeriesStorage) ReplaceSeriesRecord(ctx context.Context, accountID, customerUUID string, old, next accountseries.Applied) error {
	s := ss.store
	item, err := encodeSeriesRecord(accountID, customerUUID, next)
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: &s.table, Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if old.Exists {
		in.ConditionExpression = aws.String("v = :old AND size(pend) = :zero")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":old": sAttr(old.Version), ":zero": nAttr(0)}
	} else {
		in.ConditionExpression = aws.String("attribute_not_exists(PK)")
	}
	_, err = s.db.PutItem(ctx, in)
	if err = conflict(err); err == store.ErrConflict {
		return fmt.Errorf("series record of customer %s changed concurrently; retry: %w", customerUUID, err)
	}
	return err
}

// AddSeriesChunk adds a pending chunk to the buckets and removes it from the
// customer's record, in one transaction conditioned on the chunk being still pending:
// a chunk is added once, however often this runs.
func (ss SeriesStorage) AddSeriesChunk(ctx context.Context, accountID, customerUUID string, customerID int64, chunkID string,
	adds []accountseries.BucketAdd) error {
	s := ss.store
	items := []types.TransactWriteItem{{Update: &types.Update{
		TableName:                &s.table,
		Key:                      keyAttrs(keys.SeriesApplied(accountID, customerUUID)),
		UpdateExpression:         aws.String("REMOVE pend.#c"),
		ConditionExpression:      aws.String("attribute_exists(pend.#c)"),
		ExpressionAttributeNames: map[string]string{"#c": chunkID},
	}}}
	shard := keys.SeriesShard(customerID, customerUUID)
	for _, a := range adds {
		items = append(items, s.bucketUpdate(accountID, shard, a))
	}
	err := s.transactWrite(ctx, items)
	if conditionFailedAt(err, 0) {
		return nil // added by an earlier attempt
	}
	return err
}

func (s *Store) bucketUpdate(accountID string, shard int, a accountseries.BucketAdd) types.TransactWriteItem {
	names := map[string]string{"#et": keys.EntityType}
	values := map[string]types.AttributeValue{":et": sAttr(seriesEntity(a.SK))}
	adds := make([]string, 0, len(a.Add))
	for i, attr := range slices.Sorted(maps.Keys(a.Add)) {
		p := strconv.Itoa(i)
		names["#a"+p] = attr
		values[":v"+p] = nAttr(a.Add[attr])
		adds = append(adds, "#a"+p+" :v"+p)
	}
	expr := "SET #et = :et"
	if len(adds) > 0 {
		expr += " ADD " + strings.Join(adds, ", ")
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       keyAttrs(keys.Key{PK: keys.SeriesShardPartition(accountID, a.Segment, shard), SK: a.SK}),
		UpdateExpression:          aws.String(expr),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}
}

// seriesEntity is the entity type of a bucket item, from its sort key.
func seriesEntity(sk string) string {
	switch {
	case sk == keys.SeriesIndexSK:
		return keys.TypeSeriesIndex
	case strings.HasPrefix(sk, keys.SeriesMonthPrefix):
		return keys.TypeSeriesMonth
	case strings.HasPrefix(sk, keys.SeriesComboPrefix):
		return keys.TypeSeriesCombo
	}
	return keys.TypeSeriesYear
}

// MarkSeriesActivitiesDone records that the activity log matches the record's version;
// ErrConflict when the record has another version.
func (ss SeriesStorage) MarkSeriesActivitiesDone(ctx context.Context, accountID, customerUUID, version string) error {
	s := ss.store
	empty, err := gz(map[string]string{})
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           &s.table,
		Key:                 keyAttrs(keys.SeriesApplied(accountID, customerUUID)),
		UpdateExpression:    aws.String("SET acts_done = :t, acts_prev = :e"),
		ConditionExpression: aws.String("v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberBOOL{Value: true}, ":e": &types.AttributeValueMemberB{Value: empty}, ":v": sAttr(version),
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err = conflict(err); err == store.ErrConflict {
		return fmt.Errorf("series record of customer %s changed concurrently; retry: %w", customerUUID, err)
	}
	return err
}

// DeleteSeriesRecord deletes a customer's record if it still has the version read;
// a record changed meanwhile stays (its customer contributes again).
func (ss SeriesStorage) DeleteSeriesRecord(ctx context.Context, accountID, customerUUID, version string) error {
	s := ss.store
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &s.table, Key: keyAttrs(keys.SeriesApplied(accountID, customerUUID)),
		ConditionExpression:       aws.String("v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": sAttr(version)},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	if conflict(err) == store.ErrConflict {
		return nil
	}
	return err
}

// SeriesWindow reads the items sks and the items in [from, to] of a segment
// (eventually consistent, like every read of the buckets, which many customers write at
// once), summed over its shards, finding the live shards once: one BatchGetItem of every shard's
// index item (which also tells which shards hold the segment), one of the other sks in
// the live shards, and one Query per live shard.
func (ss SeriesStorage) SeriesWindow(ctx context.Context, accountID, segment string, sks []string, from, to string) (points, window []accountseries.Bucket, err error) {
	s := ss.store
	indexes, live, err := s.shardIndexes(ctx, accountID, segment)
	if err != nil {
		return nil, nil, err
	}
	var items []map[string]types.AttributeValue
	var keyList []map[string]types.AttributeValue
	for _, sk := range sks {
		if sk == keys.SeriesIndexSK {
			items = append(items, indexes...)
			continue
		}
		for _, shard := range live {
			keyList = append(keyList, keyAttrs(keys.Key{PK: keys.SeriesShardPartition(accountID, segment, shard), SK: sk}))
		}
	}
	others, err := s.batchRead(ctx, keyList, false)
	if err != nil {
		return nil, nil, err
	}
	if points, err = seriesBuckets(append(items, others...)); err != nil {
		return nil, nil, err
	}
	window, err = s.queryShards(ctx, accountID, segment, live, "SK BETWEEN :lo AND :hi",
		map[string]types.AttributeValue{":lo": sAttr(from), ":hi": sAttr(to)})
	return points, window, err
}

// SeriesBucketsBetween reads the bucket items of a segment whose sort keys lie in
// [from, to], summed over its shards.
func (ss SeriesStorage) SeriesBucketsBetween(ctx context.Context, accountID, segment, from, to string) ([]accountseries.Bucket, error) {
	return ss.store.queryBuckets(ctx, accountID, segment, "SK BETWEEN :lo AND :hi",
		map[string]types.AttributeValue{":lo": sAttr(from), ":hi": sAttr(to)})
}

// SeriesBucketsWithPrefix reads the bucket items of a segment whose sort keys start
// with prefix, summed over its shards.
func (ss SeriesStorage) SeriesBucketsWithPrefix(ctx context.Context, accountID, segment, prefix string) ([]accountseries.Bucket, error) {
	return ss.store.queryBuckets(ctx, accountID, segment, "begins_with(SK, :prefix)",
		map[string]types.AttributeValue{":prefix": sAttr(prefix)})
}

// shardReadConcurrency bounds the shard queries one read runs at once.
const shardReadConcurrency = 8

// queryBuckets runs one Query per live shard of the segment (sortCond on the sort
// key), shardReadConcurrency at a time.
func (s *Store) queryBuckets(ctx context.Context, accountID, segment, sortCond string, values map[string]types.AttributeValue) ([]accountseries.Bucket, error) {
	_, shards, err := s.shardIndexes(ctx, accountID, segment)
	if err != nil {
		return nil, err
	}
	return s.queryShards(ctx, accountID, segment, shards, sortCond, values)
}

// queryShards runs one Query per shard given, shardReadConcurrency at a time, and sums
// the items by sort key.
func (s *Store) queryShards(ctx context.Context, accountID, segment string, shards []int, sortCond string, values map[string]types.AttributeValue) ([]accountseries.Bucket, error) {
	pages := make([][]map[string]types.AttributeValue, len(shards))
	errs := make([]error, len(shards))
	parallel.For(len(shards), shardReadConcurrency, func(i int) {
		shard := shards[i]
		vals := maps.Clone(values)
		vals[":pk"] = sAttr(keys.SeriesShardPartition(accountID, segment, shard))
		pages[i], errs[i] = s.queryAll(ctx, &dynamodb.QueryInput{
			TableName: &s.table, KeyConditionExpression: aws.String("PK = :pk AND " + sortCond), ExpressionAttributeValues: vals,
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
	})
	var items []map[string]types.AttributeValue
	for i, page := range pages {
		if errs[i] != nil {
			return nil, errs[i]
		}
		items = append(items, page...)
	}
	return seriesBuckets(items)
}

// shardIndexes reads the index item of every shard of a segment (one BatchGetItem) and
// returns them with the live shards: shard 0, where the buckets lived before they were
// sharded, and every shard whose index item exists (accountseries adds to a segment's
// index item in a shard before any other item of the segment there).
func (s *Store) shardIndexes(ctx context.Context, accountID, segment string) ([]map[string]types.AttributeValue, []int, error) {
	byPK := make(map[string]int, keys.SeriesShards)
	keyList := make([]map[string]types.AttributeValue, 0, keys.SeriesShards)
	for shard := range keys.SeriesShards {
		pk := keys.SeriesShardPartition(accountID, segment, shard)
		byPK[pk] = shard
		keyList = append(keyList, keyAttrs(keys.Key{PK: pk, SK: keys.SeriesIndexSK}))
	}
	items, err := s.batchRead(ctx, keyList, false)
	if err != nil {
		return nil, nil, err
	}
	live := []int{0}
	for _, item := range items {
		if pk, ok := item[keys.PK].(*types.AttributeValueMemberS); ok && byPK[pk.Value] != 0 {
			live = append(live, byPK[pk.Value])
		}
	}
	slices.Sort(live)
	return items, live, nil
}

func seriesBuckets(items []map[string]types.AttributeValue) ([]accountseries.Bucket, error) {
	bySK := map[string]accountseries.Bucket{}
	for _, item := range items {
		b := accountseries.Bucket{Values: make(map[string]int64, len(item))}
		for attr, v := range item {
			switch attr {
			case keys.PK, keys.EntityType:
				continue
			case keys.SK:
				sv, _ := v.(*types.AttributeValueMemberS)
				if sv == nil {
					return nil, fmt.Errorf("series bucket without a sort key")
				}
				b.SK = sv.Value
				continue
			}
			nv, ok := v.(*types.AttributeValueMemberN)
			if !ok {
				return nil, fmt.Errorf("series bucket attribute %s is not a number", attr)
			}
			x, err := strconv.ParseInt(nv.Value, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("series bucket attribute %s: %w", attr, err)
			}
			b.Values[attr] = x
		}
		if prev, ok := bySK[b.SK]; ok {
			for attr, x := range prev.Values {
				b.Values[attr] += x
			}
		}
		bySK[b.SK] = b
	}
	out := make([]accountseries.Bucket, 0, len(bySK))
	for _, sk := range slices.Sorted(maps.Keys(bySK)) {
		out = append(out, bySK[sk])
	}
	return out, nil
}

// SeriesBucketExists reads, consistently, whether a bucket item exists in any shard.
func (ss SeriesStorage) SeriesBucketExists(ctx context.Context, accountID, segment, sk string) (bool, error) {
	keyList := make([]map[string]types.AttributeValue, keys.SeriesShards)
	for shard := range keyList {
		keyList[shard] = keyAttrs(keys.Key{PK: keys.SeriesShardPartition(accountID, segment, shard), SK: sk})
	}
	items, err := ss.store.batchRead(ctx, keyList, true)
	return err == nil && len(items) > 0, err
}

// PutSeries writes a bulk load of the series (customers' records by customer uuid,
// activities, whole bucket items, into shard 0) with batched puts, no transactions:
// for backfills and benchmarks, never concurrently with other writers of the
// account's series.
func (ss SeriesStorage) PutSeries(ctx context.Context, accountID string, records map[string]accountseries.Applied,
	acts []store.Activity, buckets []accountseries.BucketAdd) error {
	s := ss.store
	var reqs []types.WriteRequest
	put := func(item map[string]types.AttributeValue) {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	for _, customerUUID := range slices.Sorted(maps.Keys(records)) {
		item, err := encodeSeriesRecord(accountID, customerUUID, records[customerUUID])
		if err != nil {
			return err
		}
		put(item)
	}
	for _, a := range acts {
		item, err := activityAttrs(accountID, a)
		if err != nil {
			return err
		}
		put(item)
	}
	for _, b := range buckets {
		item := keyAttrs(keys.Key{PK: keys.SeriesPartition(accountID, b.Segment), SK: b.SK})
		item[keys.EntityType] = sAttr(seriesEntity(b.SK))
		for attr, v := range b.Add {
			item[attr] = nAttr(v)
		}
		put(item)
	}
	return s.batchWrite(ctx, reqs)
}

func nAttr(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func gz(v any) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func ungz(b []byte, v any) error {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
