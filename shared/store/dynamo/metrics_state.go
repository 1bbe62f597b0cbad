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
	prevHash, prevChunks := prev.Hash, metricsStateChunks(len(prev.Data))
	var chunks [][]byte
	for rest := next.Data; ; {
		n := min(len(rest), metricsStateChunk)
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
		if len(rest) == 0 {
			break
		}
	}
	// Tail chunks first, the head (with its condition) last: a reader never sees a head
	// that names chunks not yet written.
	var reqs []types.WriteRequest
	for i := 1; i < len(chunks); i++ {
		k := keys.MetricsState(accountID, customerUUID, i)
		av, err := attributevalue.MarshalMap(metricsStateItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsState, Data: chunks[i]})
		if err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
	}
	if err := s.batchWrite(ctx, reqs); err != nil {
		return err
	}
	k := keys.MetricsState(accountID, customerUUID, 0)
	av, err := attributevalue.MarshalMap(metricsStateItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsState,
		Hash: next.Hash, Chunks: len(chunks), Data: chunks[0]})
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: &s.table, Item: av, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if prevHash == "" {
		in.ConditionExpression = aws.String("attribute_not_exists(PK)")
	} else {
		in.ConditionExpression = aws.String("#h = :h")
		in.ExpressionAttributeNames = map[string]string{"#h": "hash"}
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":h": sAttr(prevHash)}
	}
	if _, err := s.db.PutItem(ctx, in); err != nil {
		return conflict(err)
	}
	var stale []types.WriteRequest
	for i := len(chunks); i < prevChunks; i++ {
		stale = append(stale, types.WriteRequest{DeleteRequest: &types.DeleteRequest{
			Key: keyAttrs(keys.MetricsState(accountID, customerUUID, i))}})
	}
	return s.batchWrite(ctx, stale)
}

// metricsStateChunks is how many items a state of n bytes occupies.
func metricsStateChunks(n int) int { return max(1, (n+metricsStateChunk-1)/metricsStateChunk) }
