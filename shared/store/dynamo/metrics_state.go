package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
)

// metricsStateChunk keeps items under DynamoDB's 400 KB limit: a large state is split
// over several items, chunk 0 carrying the hash and the count.
const metricsStateChunk = 350_000

type metricsStateItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	ET     string `dynamodbav:"et"`
	Hash   string `dynamodbav:"hash,omitempty"`
	Chunks int    `dynamodbav:"chunks,omitempty"`
	Data   []byte `dynamodbav:"data"`
}

// GetMetricsState reads the customer's state; the zero state when none was stored.
func (s *Store) GetMetricsState(ctx context.Context, accountID, customerUUID string) (store.MetricsState, error) {
	var items []metricsStateItem
	if err := s.queryPrefix(ctx, keys.CustomerPartition(accountID, customerUUID), keys.MetricsStatePrefix, &items); err != nil {
		return store.MetricsState{}, err
	}
	if len(items) == 0 {
		return store.MetricsState{}, nil
	}
	head := items[0]
	if head.Chunks > len(items) {
		return store.MetricsState{}, fmt.Errorf("metrics state of %s: %d of %d chunks", customerUUID, len(items), head.Chunks)
	}
	st := store.MetricsState{Hash: head.Hash}
	for _, it := range items[:max(head.Chunks, 1)] {
		st.Data = append(st.Data, it.Data...)
	}
	return st, nil
}

// PutMetricsState replaces the customer's state prev (the zero state when none is
// stored) with next, on condition that the stored hash is still prev's: the commit
// point of a recomputation. ErrConflict when another recomputation committed first.
func (s *Store) PutMetricsState(ctx context.Context, accountID, customerUUID string, prev, next store.MetricsState) error {
	g, err := s.MetricsStateCommit(ctx, accountID, customerUUID, prev, next)
	if err != nil {
		return err
	}
	put := g.(stateGuard).put
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: put.Item, ConditionExpression: put.ConditionExpression,
		ExpressionAttributeNames: put.ExpressionAttributeNames, ExpressionAttributeValues: put.ExpressionAttributeValues,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}); err != nil {
		return conflict(err)
	}
	return s.DropMetricsStateTails(ctx, accountID, customerUUID, prev, next)
}

// stateGuard is what a recomputation's state adds to the transaction of its
// customer's series (WriteSeriesBatch): the head of its new state, conditioned on the
// state it read, or only that condition.
type stateGuard struct {
	put   *types.Put
	check *types.ConditionCheck
}

// MetricsStateCommit prepares the commit of a customer's new state next over prev:
// the head item, conditioned on prev's hash, to be written in the transaction of the
// customer's series (or alone, PutMetricsState). The other chunks of a state larger
// than one item are written now: a reader never sees a head that names chunks not yet
// written.
func (s *Store) MetricsStateCommit(ctx context.Context, accountID, customerUUID string, prev, next store.MetricsState) (any, error) {
	var chunks [][]byte
	for rest := next.Data; ; {
		n := min(len(rest), metricsStateChunk)
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
		if len(rest) == 0 {
			break
		}
	}
	var reqs []types.WriteRequest
	for i := 1; i < len(chunks); i++ {
		k := keys.MetricsState(accountID, customerUUID, i)
		av, err := attributevalue.MarshalMap(metricsStateItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsState, Data: chunks[i]})
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
	}
	if err := s.batchWrite(ctx, reqs); err != nil {
		return nil, err
	}
	k := keys.MetricsState(accountID, customerUUID, 0)
	av, err := attributevalue.MarshalMap(metricsStateItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsState,
		Hash: next.Hash, Chunks: len(chunks), Data: chunks[0]})
	if err != nil {
		return nil, err
	}
	put := &types.Put{TableName: &s.table, Item: av}
	put.ConditionExpression, put.ExpressionAttributeNames, put.ExpressionAttributeValues = stateCondition(prev)
	return stateGuard{put: put}, nil
}

// MetricsStateCheck is the check, in the transaction of a customer's series, that its
// state is still prev (a recomputation that changes the series but not the state).
func (s *Store) MetricsStateCheck(accountID, customerUUID string, prev store.MetricsState) any {
	check := &types.ConditionCheck{TableName: &s.table, Key: keyAttrs(keys.MetricsState(accountID, customerUUID, 0))}
	cond, names, values := stateCondition(prev)
	check.ConditionExpression, check.ExpressionAttributeNames, check.ExpressionAttributeValues = cond, names, values
	return stateGuard{check: check}
}

// stateCondition is "the stored state is prev".
func stateCondition(prev store.MetricsState) (*string, map[string]string, map[string]types.AttributeValue) {
	if prev.Hash == "" {
		return aws.String(itemAbsent), nil, nil
	}
	return aws.String("#h = :h"), map[string]string{"#h": "hash"}, map[string]types.AttributeValue{":h": sAttr(prev.Hash)}
}

// DropMetricsStateTails deletes the chunks of prev that the committed state next does
// not use.
func (s *Store) DropMetricsStateTails(ctx context.Context, accountID, customerUUID string, prev, next store.MetricsState) error {
	var stale []types.WriteRequest
	for i := metricsStateChunks(len(next.Data)); i < metricsStateChunks(len(prev.Data)); i++ {
		stale = append(stale, types.WriteRequest{DeleteRequest: &types.DeleteRequest{
			Key: keyAttrs(keys.MetricsState(accountID, customerUUID, i))}})
	}
	return s.batchWrite(ctx, stale)
}

// metricsStateChunks is how many items a state of n bytes occupies.
func metricsStateChunks(n int) int { return max(1, (n+metricsStateChunk-1)/metricsStateChunk) }
