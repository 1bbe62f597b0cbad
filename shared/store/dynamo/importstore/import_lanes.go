package importstore

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// laneItem is an item of an account's import lane: its state (sent, applied) or one of
// its imports (the other attributes).
type laneItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	Type        string `dynamodbav:"et"`
	Sent        int64  `dynamodbav:"sent,omitempty"`
	Applied     int64  `dynamodbav:"applied,omitempty"`
	Seq         int64  `dynamodbav:"seq,omitempty"`
	ImportID    string `dynamodbav:"import_id,omitempty"`
	ChunkPrefix string `dynamodbav:"chunk_prefix,omitempty"`
	Total       int    `dynamodbav:"total,omitempty"`
	Next        int    `dynamodbav:"next"`
}

// AddLaneImport implements store.ImportLanes: the lane's item and the import record's
// "laned" mark in one transaction, so a retried intake never puts its import in the lane
// a second time, even after the feeder has sent it all and removed it.
func (s *Store) AddLaneImport(ctx context.Context, rec model.Import, imp store.LaneImport) error {
	k := keys.LaneImport(rec.AccountID, imp.Seq, imp.ImportID)
	item, err := attributevalue.MarshalMap(laneItem{PK: k.PK, SK: k.SK, Type: keys.TypeLaneImport, Seq: imp.Seq,
		ImportID: imp.ImportID, ChunkPrefix: imp.ChunkPrefix, Total: imp.Total, Next: imp.Next})
	if err != nil {
		return err
	}
	mark := types.TransactWriteItem{Update: &types.Update{TableName: s.t.Name(),
		Key:                       table.KeyAttrs(keys.Import(rec.AccountID, rec.DataSourceUUID, rec.ExternalID)),
		UpdateExpression:          aws.String("SET laned = :t"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND attribute_not_exists(laned)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}}}
	put := types.TransactWriteItem{Put: &types.Put{TableName: s.t.Name(), Item: item,
		ConditionExpression: aws.String(table.ItemAbsent)}}
	err = s.t.TransactWrite(ctx, []types.TransactWriteItem{mark, put})
	if table.ConditionFailedAt(err, 0) {
		return nil // a retried intake: the import is in the lane already, or was
	}
	return err
}

// ReadLane implements store.ImportLanes: the imports' sort keys come before STATE.
func (s *Store) ReadLane(ctx context.Context, accountID string) (store.Lane, error) {
	found, err := s.t.QueryAll(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.SAttr(keys.LanePartition(accountID))},
		ConsistentRead:            aws.Bool(true)})
	if err != nil {
		return store.Lane{}, err
	}
	var items []laneItem
	if err := attributevalue.UnmarshalListOfMaps(found, &items); err != nil {
		return store.Lane{}, err
	}
	var lane store.Lane
	for _, it := range items {
		switch {
		case it.SK == keys.LaneState(accountID).SK:
			lane.Sent, lane.Applied = it.Sent, it.Applied
		case strings.HasPrefix(it.SK, keys.LaneImportPrefix):
			lane.Imports = append(lane.Imports, store.LaneImport{Seq: it.Seq, ImportID: it.ImportID,
				ChunkPrefix: it.ChunkPrefix, Total: it.Total, Next: it.Next})
		}
	}
	return lane, nil
}

// AdvanceLane implements store.ImportLanes.
func (s *Store) AdvanceLane(ctx context.Context, accountID string, imp store.LaneImport, next int) error {
	k := keys.LaneImport(accountID, imp.Seq, imp.ImportID)
	cond := map[string]types.AttributeValue{":from": table.NAttr(int64(imp.Next))}
	move := types.TransactWriteItem{Update: &types.Update{TableName: s.t.Name(), Key: table.KeyAttrs(k),
		UpdateExpression: aws.String("SET #next = :to"), ConditionExpression: aws.String("#next = :from"),
		ExpressionAttributeNames:  map[string]string{"#next": "next"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":from": cond[":from"], ":to": table.NAttr(int64(next))}}}
	if next >= imp.Total {
		move = types.TransactWriteItem{Delete: &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(k),
			ConditionExpression:       aws.String("#next = :from"),
			ExpressionAttributeNames:  map[string]string{"#next": "next"},
			ExpressionAttributeValues: cond}}
	}
	count := types.TransactWriteItem{Update: &types.Update{TableName: s.t.Name(), Key: table.KeyAttrs(keys.LaneState(accountID)),
		UpdateExpression:          aws.String("ADD sent :n SET et = :et"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": table.NAttr(int64(next - imp.Next)), ":et": table.SAttr(keys.TypeLaneState)}}}
	return table.Conflict(s.t.TransactWrite(ctx, []types.TransactWriteItem{move, count}))
}

// AddLaneApplied implements store.ImportLanes.
func (s *Store) AddLaneApplied(ctx context.Context, accountID string, n int64) error {
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:              table.KeyAttrs(keys.LaneState(accountID)),
		UpdateExpression: aws.String("ADD applied :n SET et = :et"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":n": table.NAttr(n), ":et": table.SAttr(keys.TypeLaneState)},
	})
	return err
}
