package series

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
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
	if err := s.t.QueryPrefix(ctx, keys.CustomerPartition(accountID, customerUUID), keys.MetricsStatePrefix, &items); err != nil {
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
	if _, err := s.MetricsStateCommit(ctx, accountID, customerUUID, prev, next); err != nil {
		return err
	}
	put, err := s.stateHead(accountID, customerUUID, prev, next)
	if err != nil {
		return err
	}
	if _, err := s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: put.Item, ConditionExpression: put.ConditionExpression,
		ExpressionAttributeNames: put.ExpressionAttributeNames, ExpressionAttributeValues: put.ExpressionAttributeValues,
	}); err != nil {
		return table.Conflict(err)
	}
	return s.DropMetricsStateTails(ctx, accountID, customerUUID, prev, next)
}

// MetricsStateCommit prepares the commit of a customer's new state next over prev, to
// be written in the transaction of the customer's series (WriteSeriesBatch) or alone
// (PutMetricsState): the chunks other than the head of a state larger than one item
// are written now, so a reader never sees a head that names chunks not yet written.
func (s *Store) MetricsStateCommit(ctx context.Context, accountID, customerUUID string, prev, next store.MetricsState) (store.SeriesGuard, error) {
	chunks := stateChunks(next.Data)
	var reqs []types.WriteRequest
	for i := 1; i < len(chunks); i++ {
		k := keys.MetricsState(accountID, customerUUID, i)
		av, err := attributevalue.MarshalMap(metricsStateItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsState, Data: chunks[i]})
		if err != nil {
			return store.SeriesGuard{}, err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
	}
	if err := s.t.BatchWrite(ctx, reqs); err != nil {
		return store.SeriesGuard{}, err
	}
	return store.SeriesGuard{Kind: store.SeriesGuardCommit, Prev: prev, Next: next}, nil
}

// stateChunks splits a state's data into the items it occupies (at least one).
func stateChunks(data []byte) [][]byte {
	var chunks [][]byte
	for rest := data; ; {
		n := min(len(rest), metricsStateChunk)
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
		if len(rest) == 0 {
			return chunks
		}
	}
}

// stateHead is the write of next's head item (chunk 0, with the hash and the count),
// conditioned on the stored state being prev.
func (s *Store) stateHead(accountID, customerUUID string, prev, next store.MetricsState) (*types.Put, error) {
	chunks := stateChunks(next.Data)
	k := keys.MetricsState(accountID, customerUUID, 0)
	av, err := attributevalue.MarshalMap(metricsStateItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsState,
		Hash: next.Hash, Chunks: len(chunks), Data: chunks[0]})
	if err != nil {
		return nil, err
	}
	put := &types.Put{TableName: s.t.Name(), Item: av}
	put.ConditionExpression, put.ExpressionAttributeNames, put.ExpressionAttributeValues = stateCondition(prev)
	return put, nil
}

// stateCheck is the check that the customer's stored state is still prev.
func (s *Store) stateCheck(accountID, customerUUID string, prev store.MetricsState) *types.ConditionCheck {
	check := &types.ConditionCheck{TableName: s.t.Name(), Key: table.KeyAttrs(keys.MetricsState(accountID, customerUUID, 0))}
	check.ConditionExpression, check.ExpressionAttributeNames, check.ExpressionAttributeValues = stateCondition(prev)
	return check
}

// guardItem is what a customer's series record write adds to its transaction for
// its guard; nil for none.
func (s *Store) guardItem(accountID, customerUUID string, g store.SeriesGuard) (*types.TransactWriteItem, error) {
	switch g.Kind {
	case store.SeriesGuardNone:
		return nil, nil
	case store.SeriesGuardCheck:
		return &types.TransactWriteItem{ConditionCheck: s.stateCheck(accountID, customerUUID, g.Prev)}, nil
	case store.SeriesGuardCommit:
		put, err := s.stateHead(accountID, customerUUID, g.Prev, g.Next)
		if err != nil {
			return nil, err
		}
		return &types.TransactWriteItem{Put: put}, nil
	default:
		return nil, fmt.Errorf("series record of customer %s: unknown guard kind %d", customerUUID, g.Kind)
	}
}

// stateCondition is "the stored state is prev".
func stateCondition(prev store.MetricsState) (*string, map[string]string, map[string]types.AttributeValue) {
	if prev.Hash == "" {
		return aws.String(table.ItemAbsent), nil, nil
	}
	return aws.String("#h = :h"), map[string]string{"#h": "hash"}, map[string]types.AttributeValue{":h": table.SAttr(prev.Hash)}
}

// DropMetricsStateTails deletes the chunks of prev that the committed state next does
// not use.
func (s *Store) DropMetricsStateTails(ctx context.Context, accountID, customerUUID string, prev, next store.MetricsState) error {
	var stale []types.WriteRequest
	for i := metricsStateChunks(len(next.Data)); i < metricsStateChunks(len(prev.Data)); i++ {
		stale = append(stale, types.WriteRequest{DeleteRequest: &types.DeleteRequest{
			Key: table.KeyAttrs(keys.MetricsState(accountID, customerUUID, i))}})
	}
	return s.t.BatchWrite(ctx, stale)
}

// metricsStateChunks is how many items a state of n bytes occupies.
func metricsStateChunks(n int) int { return max(1, (n+metricsStateChunk-1)/metricsStateChunk) }
