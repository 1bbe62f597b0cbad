package accountseries

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
)

// db is the DynamoDB side of the package.
type db struct {
	client *dynamodb.Client
	table  string
	store  *store.Store // for its batch writes
}

func newDB(d *app.Deps) *db {
	return &db{client: d.Store.Client(), table: d.Store.Table(), store: d.Store}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func keyOf(k keys.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{keys.PK: s(k.PK), keys.SK: s(k.SK)}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// loadApplied reads the customer's record; a zero state when there is none.
func (db *db) loadApplied(ctx context.Context, accountID, customerUUID string) (state, error) {
	out, err := db.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &db.table, Key: keyOf(keys.SeriesApplied(accountID, customerUUID)),
		ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil || out.Item == nil {
		return state{Cells: Cells{}}, err
	}
	return decodeState(out.Item)
}

func decodeState(item map[string]types.AttributeValue) (state, error) {
	st := state{Exists: true, Cells: Cells{}, Pending: map[string][]itemUpdate{},
		Acts: map[string]string{}, ActsPrev: map[string]string{}}
	if v, ok := item["v"].(*types.AttributeValueMemberS); ok {
		st.Version = v.Value
	}
	if v, ok := item["acts_done"].(*types.AttributeValueMemberBOOL); ok {
		st.ActsDone = v.Value
	}
	if v, ok := item["cells"].(*types.AttributeValueMemberB); ok {
		if err := ungz(v.Value, &st.Cells); err != nil {
			return st, fmt.Errorf("accountseries: cells: %w", err)
		}
	}
	if v, ok := item["pend"].(*types.AttributeValueMemberM); ok {
		for id, c := range v.Value {
			b, ok := c.(*types.AttributeValueMemberB)
			if !ok {
				continue
			}
			var us []itemUpdate
			if err := ungz(b.Value, &us); err != nil {
				return st, fmt.Errorf("accountseries: pending chunk: %w", err)
			}
			st.Pending[id] = us
		}
	}
	for attr, m := range map[string]map[string]string{"acts": st.Acts, "acts_prev": st.ActsPrev} {
		if v, ok := item[attr].(*types.AttributeValueMemberB); ok {
			if err := ungz(v.Value, &m); err != nil {
				return st, fmt.Errorf("accountseries: %s: %w", attr, err)
			}
		}
	}
	return st, nil
}

func encodeState(accountID, customerUUID string, st state) (map[string]types.AttributeValue, error) {
	item := keyOf(keys.SeriesApplied(accountID, customerUUID))
	item[keys.EntityType] = s(keys.TypeSeriesApplied)
	item["v"] = s(st.Version)
	item["acts_done"] = &types.AttributeValueMemberBOOL{Value: st.ActsDone}
	pend := map[string]types.AttributeValue{}
	for id, us := range st.Pending {
		b, err := gz(us)
		if err != nil {
			return nil, err
		}
		pend[id] = &types.AttributeValueMemberB{Value: b}
	}
	item["pend"] = &types.AttributeValueMemberM{Value: pend}
	for attr, v := range map[string]any{"cells": st.Cells, "acts": st.Acts, "acts_prev": st.ActsPrev} {
		b, err := gz(v)
		if err != nil {
			return nil, err
		}
		item[attr] = &types.AttributeValueMemberB{Value: b}
	}
	return item, nil
}

// switchVersion replaces the record, only if nobody changed it since it was read and
// no chunk of the previous version is still pending.
func (db *db) switchVersion(ctx context.Context, accountID, customerUUID string, old, next state) error {
	item, err := encodeState(accountID, customerUUID, next)
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: &db.table, Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if old.Exists {
		in.ConditionExpression = aws.String("v = :old AND size(pend) = :zero")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":old": s(old.Version), ":zero": n(0)}
	} else {
		in.ConditionExpression = aws.String("attribute_not_exists(PK)")
	}
	_, err = db.client.PutItem(ctx, in)
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fmt.Errorf("accountseries: customer %s changed concurrently; retry", customerUUID)
	}
	return err
}

// finishPending adds every pending chunk to the buckets, each exactly once.
func (db *db) finishPending(ctx context.Context, accountID, customerUUID string, st state) error {
	for _, id := range sortedKeys(st.Pending) {
		if err := db.applyChunk(ctx, accountID, customerUUID, id, st.Pending[id]); err != nil {
			return err
		}
	}
	return nil
}

func (db *db) applyChunk(ctx context.Context, accountID, customerUUID, id string, us []itemUpdate) error {
	guard := types.TransactWriteItem{Update: &types.Update{
		TableName:                &db.table,
		Key:                      keyOf(keys.SeriesApplied(accountID, customerUUID)),
		UpdateExpression:         aws.String("REMOVE pend.#c"),
		ConditionExpression:      aws.String("attribute_exists(pend.#c)"),
		ExpressionAttributeNames: map[string]string{"#c": id},
	}}
	items := []types.TransactWriteItem{guard}
	for _, u := range us {
		items = append(items, db.bucketUpdate(accountID, u))
	}
	err := db.transact(ctx, items)
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) && len(tc.CancellationReasons) > 0 &&
		aws.ToString(tc.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return nil // this chunk was added by an earlier attempt
	}
	return err
}

func (db *db) bucketUpdate(accountID string, u itemUpdate) types.TransactWriteItem {
	names := map[string]string{"#et": keys.EntityType}
	values := map[string]types.AttributeValue{":et": s(entityOf(u.SK))}
	adds := make([]string, 0, len(u.Add))
	for i, attr := range sortedKeys(u.Add) {
		p := strconv.Itoa(i)
		names["#a"+p] = attr
		values[":v"+p] = n(u.Add[attr])
		adds = append(adds, "#a"+p+" :v"+p)
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &db.table,
		Key:                       keyOf(keys.Key{PK: keys.SeriesPartition(accountID, u.Segment), SK: u.SK}),
		UpdateExpression:          aws.String("SET #et = :et ADD " + strings.Join(adds, ", ")),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}
}

func entityOf(sk string) string {
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

// transact runs a transaction, retrying when another transaction held one of its
// items (bucket items of busy months are shared by many customers).
func (db *db) transact(ctx context.Context, items []types.TransactWriteItem) error {
	var err error
	for attempt := range 8 {
		_, err = db.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: items, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if !conflicted(err) {
			return err
		}
		wait := time.Duration(10<<attempt)*time.Millisecond + time.Duration(rand.IntN(10))*time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return err
}

func conflicted(err error) bool {
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		var tip *types.TransactionInProgressException
		return errors.As(err, &tip)
	}
	for _, r := range tc.CancellationReasons {
		if aws.ToString(r.Code) == "TransactionConflict" {
			return true
		}
	}
	return false
}

// markActivitiesDone records that the activity log matches the current version.
func (db *db) markActivitiesDone(ctx context.Context, accountID, customerUUID, version string) error {
	empty, err := gz(map[string]string{})
	if err != nil {
		return err
	}
	_, err = db.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           &db.table,
		Key:                 keyOf(keys.SeriesApplied(accountID, customerUUID)),
		UpdateExpression:    aws.String("SET acts_done = :t, acts_prev = :e"),
		ConditionExpression: aws.String("v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberBOOL{Value: true}, ":e": &types.AttributeValueMemberB{Value: empty}, ":v": s(version),
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fmt.Errorf("accountseries: customer %s changed concurrently; retry", customerUUID)
	}
	return err
}

// deleteEmptyApplied removes the record of a customer that no longer contributes.
func (db *db) deleteEmptyApplied(ctx context.Context, accountID, customerUUID string) error {
	st, err := db.loadApplied(ctx, accountID, customerUUID)
	if err != nil || !st.Exists || len(st.Cells) > 0 || len(st.Acts) > 0 || len(st.Pending) > 0 || !st.ActsDone {
		return err
	}
	_, err = db.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &db.table, Key: keyOf(keys.SeriesApplied(accountID, customerUUID)),
		ConditionExpression:       aws.String("v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": s(st.Version)},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil // re-added meanwhile: it contributes again
	}
	return err
}
