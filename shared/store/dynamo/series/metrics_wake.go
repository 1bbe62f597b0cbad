package series

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type metricsWakeItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	ET     string `dynamodbav:"et"`
	GSI2PK string `dynamodbav:"GSI2PK"`
	GSI2SK string `dynamodbav:"GSI2SK"`
	store.MetricsWake
}

// PutMetricsWake sets (or moves) the customer's wake-up; the item is indexed in GSI2 by
// the UTC hour it is due in.
func (s *Store) PutMetricsWake(ctx context.Context, w store.MetricsWake) error {
	k := keys.MetricsWake(w.AccountID, w.CustomerUUID)
	return s.t.Put(ctx, metricsWakeItem{PK: k.PK, SK: k.SK, ET: keys.TypeMetricsWake,
		GSI2PK: keys.MetricsWakeBucket(w.Due), GSI2SK: keys.MetricsWakeOrder(w.Due, w.AccountID, w.CustomerUUID),
		MetricsWake: w})
}

// DeleteMetricsWake removes the customer's wake-up, if any.
func (s *Store) DeleteMetricsWake(ctx context.Context, accountID, customerUUID string) error {
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key: table.KeyAttrs(keys.MetricsWake(accountID, customerUUID))})
	return err
}

// DueMetricsWakes lists wake-ups due at or before until, looking back over the hours
// since (inclusive): one GSI2 query per hour bucket, never a scan.
func (s *Store) DueMetricsWakes(ctx context.Context, since, until time.Time) ([]store.MetricsWake, error) {
	var out []store.MetricsWake
	end := keys.MetricsWakeOrder(until, "\xff", "")
	for h := since.UTC().Truncate(time.Hour); !h.After(until); h = h.Add(time.Hour) {
		err := s.t.QueryPages(ctx, &dynamodb.QueryInput{
			IndexName:              aws.String(keys.GSI2),
			KeyConditionExpression: aws.String("GSI2PK = :pk AND GSI2SK <= :end"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":pk": table.SAttr(keys.MetricsWakeBucket(h)), ":end": table.SAttr(end),
			},
		}, func(page []map[string]types.AttributeValue) error {
			var items []metricsWakeItem
			if err := attributevalue.UnmarshalListOfMaps(page, &items); err != nil {
				return err
			}
			for _, it := range items {
				out = append(out, it.MetricsWake)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

type connectionItem struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
	ET string `dynamodbav:"et"`
	store.Connection
}

// PutConnection records a connected pair (idempotent).
func (s *Store) PutConnection(ctx context.Context, c store.Connection) error {
	if c.B < c.A {
		c.A, c.B = c.B, c.A
	}
	k := keys.Connection(c.AccountID, c.CustomerUUID, c.A, c.B)
	return s.t.Put(ctx, connectionItem{PK: k.PK, SK: k.SK, ET: keys.TypeConnection, Connection: c})
}

// DeleteConnection forgets a connected pair (idempotent).
func (s *Store) DeleteConnection(ctx context.Context, accountID, customerUUID, a, b string) error {
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key: table.KeyAttrs(keys.Connection(accountID, customerUUID, a, b))})
	return err
}

// CustomerConnections lists a customer's connected pairs.
func (s *Store) CustomerConnections(ctx context.Context, accountID, customerUUID string) ([]store.Connection, error) {
	var items []connectionItem
	if err := s.t.QueryPrefix(ctx, keys.CustomerPartition(accountID, customerUUID), keys.ConnectionPrefix, &items); err != nil {
		return nil, err
	}
	out := make([]store.Connection, len(items))
	for i, it := range items {
		out[i] = it.Connection
	}
	return out, nil
}
