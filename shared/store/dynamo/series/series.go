package series

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
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// The account series: package accountseries computes them and describes its storage
// needs (store.SeriesStorage); this file and activities.go implement them.
// docs/metrics-api.md describes the layout: per segment one partition of bucket items,
// numbers that customers only ever add to; per customer a record of what it added.

// SeriesStorage is the store's adapter for the account series: what they keep
// (store.SeriesStorage) and nothing else of the store.
type SeriesStorage struct{ store *Store }

var _ store.SeriesStorage = SeriesStorage{}

// Series is the adapter of the account series on this store.
func (s *Store) Series() store.SeriesStorage { return SeriesStorage{store: s} }

// GetAccount reads the account (its calendar).
func (ss SeriesStorage) GetAccount(ctx context.Context, accountID string) (model.Account, error) {
	return ss.store.accounts.GetAccount(ctx, accountID)
}

// GetSeriesRecord reads a customer's record; a record with Exists false when there is
// none.
func (ss SeriesStorage) GetSeriesRecord(ctx context.Context, accountID, customerUUID string) (store.SeriesRecord, error) {
	s := ss.store
	out, err := s.t.GetItem(ctx, &dynamodb.GetItemInput{
		Key:            table.KeyAttrs(keys.SeriesApplied(accountID, customerUUID)),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil || out.Item == nil {
		return store.SeriesRecord{Cells: map[string]int64{}}, err
	}
	return decodeSeriesRecord(out.Item)
}

// GetSeriesRecords reads the records of several customers at once (consistently, 100
// per BatchGetItem), by customer uuid; a customer without one is left out.
func (ss SeriesStorage) GetSeriesRecords(ctx context.Context, accountID string, customerUUIDs []string) (map[string]store.SeriesRecord, error) {
	keyList := make([]map[string]types.AttributeValue, len(customerUUIDs))
	byPK := make(map[string]string, len(customerUUIDs))
	for i, u := range customerUUIDs {
		k := keys.SeriesApplied(accountID, u)
		keyList[i], byPK[k.PK] = table.KeyAttrs(k), u
	}
	items, err := ss.store.t.BatchRead(ctx, keyList, true)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.SeriesRecord, len(items))
	for _, item := range items {
		r, err := decodeSeriesRecord(item)
		if err != nil {
			return nil, err
		}
		out[byPK[table.StringAttr(item, keys.PK)]] = r
	}
	return out, nil
}

func decodeSeriesRecord(item map[string]types.AttributeValue) (store.SeriesRecord, error) {
	r := store.SeriesRecord{Exists: true, Cells: map[string]int64{}, Pending: map[string][]store.SeriesBucketAdd{},
		Acts: map[string]string{}, ActsPrev: map[string]string{}}
	if v, ok := item["v"].(*types.AttributeValueMemberS); ok {
		r.Version = v.Value
	}
	if v, ok := item["acts_done"].(*types.AttributeValueMemberBOOL); ok {
		r.ActsDone = v.Value
	}
	if v, ok := item["sh"].(*types.AttributeValueMemberN); ok {
		r.Shard, _ = strconv.Atoi(v.Value)
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
			var adds []store.SeriesBucketAdd
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

func encodeSeriesRecord(accountID, customerUUID string, r store.SeriesRecord) (map[string]types.AttributeValue, error) {
	item := table.KeyAttrs(keys.SeriesApplied(accountID, customerUUID))
	item[keys.EntityType] = table.SAttr(keys.TypeSeriesApplied)
	item["v"] = table.SAttr(r.Version)
	item["acts_done"] = &types.AttributeValueMemberBOOL{Value: r.ActsDone}
	if r.Shard != 0 {
		item["sh"] = table.NAttr(int64(r.Shard))
	}
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
func (ss SeriesStorage) ReplaceSeriesRecord(ctx context.Context, accountID, customerUUID string, old, next store.SeriesRecord) error {
	s := ss.store
	put, err := s.recordPut(accountID, store.SeriesRecordWrite{CustomerUUID: customerUUID, Old: old, Next: &next})
	if err != nil {
		return err
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: put.Item, ConditionExpression: put.ConditionExpression,
		ExpressionAttributeNames: put.ExpressionAttributeNames, ExpressionAttributeValues: put.ExpressionAttributeValues,
	})
	if err = table.Conflict(err); err == store.ErrConflict {
		return fmt.Errorf("series record of customer %s: %w (%w)", customerUUID, store.ErrSeriesChanged, err)
	}
	return err
}

// recordPut is the conditional put of a customer's record: only over the record read
// (none, or the same version with no chunk pending).
//
// The record also keeps when it was written (the wall clock's, whatever the service's
// clock says): a write whose inputs were read before that (ReadAt) lost to a
// recomputation that read after them, and fails too, even if the record it read is
// the one stored (it read the record late).
func (s *Store) recordPut(accountID string, w store.SeriesRecordWrite) (*types.Put, error) {
	item, err := encodeSeriesRecord(accountID, w.CustomerUUID, *w.Next)
	if err != nil {
		return nil, err
	}
	item[recordWrittenAt] = table.NAttr(time.Now().UnixNano())
	put := &types.Put{TableName: s.t.Name(), Item: item}
	if w.Old.Exists {
		put.ConditionExpression = aws.String("v = :old AND size(pend) = :zero")
		put.ExpressionAttributeValues = map[string]types.AttributeValue{":old": table.SAttr(w.Old.Version), ":zero": table.NAttr(0)}
	} else {
		put.ConditionExpression = aws.String(table.ItemAbsent)
	}
	if !w.ReadAt.IsZero() {
		put.ConditionExpression = aws.String(*put.ConditionExpression + " AND (attribute_not_exists(#at) OR #at < :read)")
		put.ExpressionAttributeNames = map[string]string{"#at": recordWrittenAt}
		if put.ExpressionAttributeValues == nil {
			put.ExpressionAttributeValues = map[string]types.AttributeValue{}
		}
		put.ExpressionAttributeValues[":read"] = table.NAttr(w.ReadAt.UnixNano())
	}
	return put, nil
}

// recordWrittenAt is the attribute of a customer's series record that says when it was
// written (Unix nanoseconds).
const recordWrittenAt = "at"

// WriteSeriesBatch writes, in one transaction, each customer's record (only over the
// one read) with its guard (the recomputation's state commit or check: MetricsStateCommit,
// store.SeriesStateCheck), and adds adds to the bucket items of shard: a customer's state,
// record and contribution change together or not at all. A bulk shard's items also
// count the writes that added to them (keys.SeriesWritesAttr), which a fold checks.
// When a customer's record or state changed since it was read, nothing is written and
// conflicts lists the records' positions.
func (ss SeriesStorage) WriteSeriesBatch(ctx context.Context, accountID string, shard int, records []store.SeriesRecordWrite,
	adds []store.SeriesBucketAdd) (conflicts []int, err error) {
	s := ss.store
	var items []types.TransactWriteItem
	var owner []int // the record of each item; -1 for a bucket
	for i, w := range records {
		guard, err := s.guardItem(accountID, w.CustomerUUID, w.Guard)
		if err != nil {
			return nil, err
		}
		if guard != nil {
			items = append(items, *guard)
			owner = append(owner, i)
		}
		if w.Next != nil {
			put, err := s.recordPut(accountID, w)
			if err != nil {
				return nil, err
			}
			items = append(items, types.TransactWriteItem{Put: put})
			owner = append(owner, i)
		}
	}
	for _, a := range adds {
		items = append(items, s.bucketUpdate(accountID, shard, a))
		owner = append(owner, -1)
	}
	if len(items) == 0 {
		return nil, nil
	}
	err = s.t.TransactWrite(ctx, items)
	for i, code := range table.CancellationReasons(err) {
		if code == table.ConditionFailed && owner[i] >= 0 && !slices.Contains(conflicts, owner[i]) {
			conflicts = append(conflicts, owner[i])
		}
	}
	if len(conflicts) > 0 {
		return conflicts, nil
	}
	return nil, err
}

// AddSeriesChunk adds a pending chunk to the buckets of shard and removes it from the
// customer's record, in one transaction conditioned on the chunk being still pending:
// a chunk is added once, however often this runs.
func (ss SeriesStorage) AddSeriesChunk(ctx context.Context, accountID, customerUUID string, shard int, chunkID string,
	adds []store.SeriesBucketAdd) error {
	s := ss.store
	items := []types.TransactWriteItem{{Update: &types.Update{
		TableName:                s.t.Name(),
		Key:                      table.KeyAttrs(keys.SeriesApplied(accountID, customerUUID)),
		UpdateExpression:         aws.String("REMOVE pend.#c"),
		ConditionExpression:      aws.String("attribute_exists(pend.#c)"),
		ExpressionAttributeNames: map[string]string{"#c": chunkID},
	}}}
	for _, a := range adds {
		items = append(items, s.bucketUpdate(accountID, shard, a))
	}
	err := s.t.TransactWrite(ctx, items)
	if table.ConditionFailedAt(err, 0) {
		return nil // added by an earlier attempt
	}
	return err
}

func (s *Store) bucketUpdate(accountID string, shard int, a store.SeriesBucketAdd) types.TransactWriteItem {
	names := map[string]string{"#et": keys.EntityType}
	values := map[string]types.AttributeValue{":et": table.SAttr(seriesEntity(a.SK))}
	adds := make([]string, 0, len(a.Add))
	for i, attr := range slices.Sorted(maps.Keys(a.Add)) {
		p := strconv.Itoa(i)
		names["#a"+p] = attr
		values[":v"+p] = table.NAttr(a.Add[attr])
		adds = append(adds, "#a"+p+" :v"+p)
	}
	if shard != 0 {
		names["#w"], values[":one"] = keys.SeriesWritesAttr, table.NAttr(1)
		adds = append(adds, "#w :one")
	}
	expr := "SET #et = :et"
	if len(adds) > 0 {
		expr += " ADD " + strings.Join(adds, ", ")
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 s.t.Name(),
		Key:                       table.KeyAttrs(keys.Key{PK: keys.SeriesShardPartition(accountID, a.Segment, shard), SK: a.SK}),
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
	_, err = s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                 table.KeyAttrs(keys.SeriesApplied(accountID, customerUUID)),
		UpdateExpression:    aws.String("SET acts_done = :t, acts_prev = :e"),
		ConditionExpression: aws.String("v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberBOOL{Value: true}, ":e": &types.AttributeValueMemberB{Value: empty}, ":v": table.SAttr(version),
		},
	})
	if err = table.Conflict(err); err == store.ErrConflict {
		return fmt.Errorf("series record of customer %s changed concurrently; retry: %w", customerUUID, err)
	}
	return err
}

// DeleteSeriesRecord deletes a customer's record if it still has the version read;
// a record changed meanwhile stays (its customer contributes again).
func (ss SeriesStorage) DeleteSeriesRecord(ctx context.Context, accountID, customerUUID, version string) error {
	s := ss.store
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key:                       table.KeyAttrs(keys.SeriesApplied(accountID, customerUUID)),
		ConditionExpression:       aws.String("v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": table.SAttr(version)},
	})
	if table.Conflict(err) == store.ErrConflict {
		return nil
	}
	return err
}

// SeriesWindow reads the items sks and the items in [from, to] of a segment's read
// copy, shard 0 (eventually consistent, like every read of the buckets, which many
// customers write at once): one BatchGetItem and one Query, whatever the number of
// customers. What bulk shards hold shows once it is folded into the copy.
func (ss SeriesStorage) SeriesWindow(ctx context.Context, accountID, segment string, sks []string, from, to string) (points, window []store.SeriesBucket, err error) {
	s := ss.store
	keyList := make([]map[string]types.AttributeValue, len(sks))
	for i, sk := range sks {
		keyList[i] = table.KeyAttrs(keys.Key{PK: keys.SeriesPartition(accountID, segment), SK: sk})
	}
	items, err := s.t.BatchRead(ctx, keyList, false)
	if err != nil {
		return nil, nil, err
	}
	if points, err = seriesBuckets(items); err != nil {
		return nil, nil, err
	}
	window, err = s.queryShards(ctx, accountID, segment, []int{0}, "SK BETWEEN :lo AND :hi",
		map[string]types.AttributeValue{":lo": table.SAttr(from), ":hi": table.SAttr(to)}, false)
	return points, window, err
}

// SeriesBucketsBetween reads the bucket items of a segment whose sort keys lie in
// [from, to]: those of the read copy, and those of the bulk shards not folded yet
// (summed over the shards).
func (ss SeriesStorage) SeriesBucketsBetween(ctx context.Context, accountID, segment, from, to string) (copied, unfolded []store.SeriesBucket, err error) {
	s := ss.store
	vals := map[string]types.AttributeValue{":lo": table.SAttr(from), ":hi": table.SAttr(to)}
	if copied, err = s.queryShards(ctx, accountID, segment, []int{0}, "SK BETWEEN :lo AND :hi", vals, true); err != nil {
		return nil, nil, err
	}
	_, live, err := s.shardIndexes(ctx, accountID, segment)
	if err != nil {
		return nil, nil, err
	}
	unfolded, err = s.queryShards(ctx, accountID, segment, slices.DeleteFunc(live, func(shard int) bool { return shard == 0 }),
		"SK BETWEEN :lo AND :hi", vals, true)
	return copied, unfolded, err
}

// SeriesBucketsWithPrefix reads the bucket items of a segment's read copy whose sort
// keys start with prefix.
func (ss SeriesStorage) SeriesBucketsWithPrefix(ctx context.Context, accountID, segment, prefix string) ([]store.SeriesBucket, error) {
	return ss.store.queryShards(ctx, accountID, segment, []int{0}, "begins_with(SK, :prefix)",
		map[string]types.AttributeValue{":prefix": table.SAttr(prefix)}, false)
}

// shardReadConcurrency bounds the shard queries one read runs at once.
const shardReadConcurrency = 8

// queryShards runs one Query per shard given, shardReadConcurrency at a time, and sums
// the items by sort key.
func (s *Store) queryShards(ctx context.Context, accountID, segment string, shards []int, sortCond string,
	values map[string]types.AttributeValue, consistent bool) ([]store.SeriesBucket, error) {
	pages := make([][]map[string]types.AttributeValue, len(shards))
	errs := make([]error, len(shards))
	parallel.For(len(shards), shardReadConcurrency, func(i int) {
		shard := shards[i]
		vals := maps.Clone(values)
		vals[":pk"] = table.SAttr(keys.SeriesShardPartition(accountID, segment, shard))
		pages[i], errs[i] = s.t.QueryAll(ctx, &dynamodb.QueryInput{
			KeyConditionExpression: aws.String("PK = :pk AND " + sortCond), ExpressionAttributeValues: vals,
			ConsistentRead: aws.Bool(consistent),
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
// returns them with the live shards: shard 0, the read copy, and every bulk shard
// whose index item exists (accountseries adds to a segment's index item in a shard
// with any other item of the segment there).
func (s *Store) shardIndexes(ctx context.Context, accountID, segment string) ([]map[string]types.AttributeValue, []int, error) {
	byPK := make(map[string]int, keys.SeriesShards)
	keyList := make([]map[string]types.AttributeValue, 0, keys.SeriesShards)
	for shard := range keys.SeriesShards {
		pk := keys.SeriesShardPartition(accountID, segment, shard)
		byPK[pk] = shard
		keyList = append(keyList, table.KeyAttrs(keys.Key{PK: pk, SK: keys.SeriesIndexSK}))
	}
	items, err := s.t.BatchRead(ctx, keyList, false)
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

func seriesBuckets(items []map[string]types.AttributeValue) ([]store.SeriesBucket, error) {
	bySK := map[string]store.SeriesBucket{}
	for _, item := range items {
		b := store.SeriesBucket{Values: make(map[string]int64, len(item))}
		for attr, v := range item {
			switch attr {
			case keys.PK, keys.EntityType, keys.SeriesWritesAttr:
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
	out := make([]store.SeriesBucket, 0, len(bySK))
	for _, sk := range slices.Sorted(maps.Keys(bySK)) {
		out = append(out, bySK[sk])
	}
	return out, nil
}

// SeriesBucketExists reads, consistently, whether a bucket item exists in any shard.
func (ss SeriesStorage) SeriesBucketExists(ctx context.Context, accountID, segment, sk string) (bool, error) {
	keyList := make([]map[string]types.AttributeValue, keys.SeriesShards)
	for shard := range keyList {
		keyList[shard] = table.KeyAttrs(keys.Key{PK: keys.SeriesShardPartition(accountID, segment, shard), SK: sk})
	}
	items, err := ss.store.t.BatchRead(ctx, keyList, true)
	return err == nil && len(items) > 0, err
}

// PutSeries writes a bulk load of the series (customers' records by customer uuid,
// activities, whole bucket items, into shard 0) with batched puts, no transactions:
// for backfills and benchmarks, never concurrently with other writers of the
// account's series.
func (ss SeriesStorage) PutSeries(ctx context.Context, accountID string, records map[string]store.SeriesRecord,
	acts []store.Activity, buckets []store.SeriesBucketAdd) error {
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
		item := table.KeyAttrs(keys.Key{PK: keys.SeriesPartition(accountID, b.Segment), SK: b.SK})
		item[keys.EntityType] = table.SAttr(seriesEntity(b.SK))
		for attr, v := range b.Add {
			item[attr] = table.NAttr(v)
		}
		put(item)
	}
	return s.t.BatchWrite(ctx, reqs)
}

// gzipWriters are reused: a writer's compression state is most of the cost of
// compressing a record's few hundred bytes.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}

func gz(v any) ([]byte, error) {
	var buf bytes.Buffer
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(&buf)
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

// FoldSeries moves what the bulk shards of parts hold into the read copy (shard 0):
// it reads each (shard, segment) partition consistently and, in transactions of at
// most 100 actions, deletes its items and adds their sums to the copy's items, each
// delete conditioned on the item's write count being the one read. A bulk write that
// lands in between cancels that transaction; the fold reads again and goes on, until
// the parts hold nothing. Safe to run again and concurrently with itself.
func (ss SeriesStorage) FoldSeries(ctx context.Context, accountID string, parts []store.SeriesShardPart) error {
	s := ss.store
	for attempt := 1; ; attempt++ {
		moves, err := s.readFold(ctx, accountID, parts)
		if err != nil || len(moves) == 0 {
			return err
		}
		done := true
		for _, tx := range packFold(moves) {
			err := s.t.TransactWrite(ctx, s.foldItems(accountID, tx))
			if table.FailedAt(err) >= 0 {
				done = false // a bulk write landed since the read: read again
				continue
			}
			if err != nil {
				return err
			}
		}
		if done {
			return nil
		}
		if attempt == table.MaxAttempts {
			return fmt.Errorf("fold of the series of %s: still written to after %d attempts", accountID, table.MaxAttempts)
		}
		if err := table.Pause(ctx, attempt); err != nil {
			return err
		}
	}
}

// foldMove is one bulk shard item to move into the read copy.
type foldMove struct {
	segment string
	shard   int
	item    store.SeriesBucket
	writes  *types.AttributeValueMemberN // its write count; nil when it has none
}

// readFold reads every item of the parts' partitions, at once.
func (s *Store) readFold(ctx context.Context, accountID string, parts []store.SeriesShardPart) ([]foldMove, error) {
	type partition struct {
		segment string
		shard   int
	}
	var ps []partition
	for _, p := range parts {
		if p.Shard == 0 {
			continue
		}
		for _, seg := range p.Segments {
			if !slices.Contains(ps, partition{seg, p.Shard}) {
				ps = append(ps, partition{seg, p.Shard})
			}
		}
	}
	pages := make([][]map[string]types.AttributeValue, len(ps))
	errs := make([]error, len(ps))
	parallel.For(len(ps), shardReadConcurrency, func(i int) {
		pages[i], errs[i] = s.t.QueryAll(ctx, &dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.SAttr(keys.SeriesShardPartition(accountID, ps[i].segment, ps[i].shard))},
			ConsistentRead:            aws.Bool(true)})
	})
	var out []foldMove
	for i, page := range pages {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, item := range page {
			b, err := seriesBuckets([]map[string]types.AttributeValue{item})
			if err != nil {
				return nil, err
			}
			w, _ := item[keys.SeriesWritesAttr].(*types.AttributeValueMemberN)
			out = append(out, foldMove{segment: ps[i].segment, shard: ps[i].shard, item: b[0], writes: w})
		}
	}
	return out, nil
}

// packFold groups moves into transactions of at most 100 actions: one delete per move
// and one addition per copy item the transaction's moves add to.
func packFold(moves []foldMove) [][]foldMove {
	var out [][]foldMove
	var cur []foldMove
	targets := map[[2]string]bool{}
	for _, m := range moves {
		t := [2]string{m.segment, m.item.SK}
		need := 1
		if !targets[t] {
			need++
		}
		if len(cur)+len(targets)+need > 100 {
			out, cur, targets = append(out, cur), nil, map[[2]string]bool{}
		}
		cur = append(cur, m)
		targets[t] = true
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// foldItems is one fold transaction: the moves' deletes and the copy's additions.
func (s *Store) foldItems(accountID string, moves []foldMove) []types.TransactWriteItem {
	sums := map[[2]string]map[string]int64{}
	var order [][2]string
	var items []types.TransactWriteItem
	for _, m := range moves {
		del := &types.Delete{TableName: s.t.Name(),
			Key:                      table.KeyAttrs(keys.Key{PK: keys.SeriesShardPartition(accountID, m.segment, m.shard), SK: m.item.SK}),
			ConditionExpression:      aws.String("attribute_exists(PK) AND attribute_not_exists(#w)"),
			ExpressionAttributeNames: map[string]string{"#w": keys.SeriesWritesAttr}}
		if m.writes != nil {
			del.ConditionExpression = aws.String("#w = :w")
			del.ExpressionAttributeValues = map[string]types.AttributeValue{":w": m.writes}
		}
		items = append(items, types.TransactWriteItem{Delete: del})
		t := [2]string{m.segment, m.item.SK}
		if sums[t] == nil {
			sums[t] = map[string]int64{}
			order = append(order, t)
		}
		for attr, x := range m.item.Values {
			sums[t][attr] += x
		}
	}
	for _, t := range order {
		add := map[string]int64{}
		for attr, x := range sums[t] {
			if x != 0 {
				add[attr] = x
			}
		}
		items = append(items, s.bucketUpdate(accountID, 0, store.SeriesBucketAdd{Segment: t[0], SK: t[1], Add: add}))
	}
	return items
}
