package series

import (
	"context"
	"errors"
	"maps"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// ReshardCounts is what Reshard moved to its write shard.
type ReshardCounts struct {
	// Reservations counts customer external-id reservations and subscription-event
	// external-id claims moved to their reservation partition.
	Reservations int
	// Conflicts are the reservations (partition and sort key) left in the data
	// source's partition because their shard already holds a different item for the
	// same external id, written after the shards were introduced.
	Conflicts []string
	// Customers, Events and Activities count the items moved to their listing shard.
	Customers, Events, Activities int
}

// Reshard moves the account's items written before the write shards (all on shard
// 0's key, keys.ListingShards and keys.ReservationShards) to the shard their key
// builders name. Every step is a conditional or repeatable write, so it is safe while
// the service runs and when repeated: a second run moves nothing.
func (s *Store) Reshard(ctx context.Context, accountID string) (ReshardCounts, error) {
	var c ReshardCounts
	sources, err := s.accounts.ListDataSources(ctx, accountID)
	if err != nil {
		return c, err
	}
	for _, ds := range sources {
		for _, prefix := range []string{keys.CustomerExternalIDPrefix, keys.SubscriptionEventExternalIDPrefix} {
			if err := s.moveReservations(ctx, accountID, ds.UUID, prefix, &c); err != nil {
				return c, err
			}
		}
	}
	listings := []struct {
		old, et string
		count   *int
		target  func(reshardFields) (gsi1, gsi2 string)
	}{
		{keys.CustomerListShards(accountID)[0], keys.TypeCustomer, &c.Customers,
			func(f reshardFields) (string, string) { return keys.CustomerList(accountID, f.ID), "" }},
		{keys.SubscriptionEventsShards(accountID)[0], keys.TypeSubscriptionEvent, &c.Events,
			func(f reshardFields) (string, string) { return keys.SubscriptionEvents(accountID, f.ID), "" }},
		{keys.ActivitiesByAccountShards(accountID)[0], keys.TypeActivity, &c.Activities,
			func(f reshardFields) (string, string) {
				return keys.ActivitiesByAccount(accountID, f.UUID), keys.ActivitiesByType(accountID, f.Type, f.UUID)
			}},
	}
	for _, l := range listings {
		n, err := s.moveListed(ctx, l.old, l.et, l.target)
		*l.count = n
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// moveReservations moves the reservations of one kind (sort key prefix) that sit in
// the data source's partition but belong to another reservation shard: a copy at the
// new key (taken only when free, or already this very item), then the old one deleted.
func (s *Store) moveReservations(ctx context.Context, accountID, dsUUID, prefix string, c *ReshardCounts) error {
	old := keys.DataSourcePartition(accountID, dsUUID)
	q := table.PrefixListing(old, prefix)
	return s.t.QueryPages(ctx, &q.In, func(items []map[string]types.AttributeValue) error {
		for _, it := range items {
			sk, _ := it[keys.SK].(*types.AttributeValueMemberS)
			if sk == nil {
				continue
			}
			pk := keys.DataSourceReservations(accountID, dsUUID, strings.TrimPrefix(sk.Value, prefix))
			if pk == old {
				continue
			}
			moved := maps.Clone(it)
			moved[keys.PK] = table.SAttr(pk)
			err := s.t.PutNewAttrs(ctx, moved)
			if errors.Is(err, store.ErrConflict) {
				c.Conflicts = append(c.Conflicts, old+" "+sk.Value)
				continue
			}
			if err != nil {
				return err
			}
			if _, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
				Key: table.KeyAttrs(keys.Key{PK: old, SK: sk.Value})}); err != nil {
				return err
			}
			c.Reservations++
		}
		return nil
	})
}

// reshardFields are the attributes a listed item's shard is computed from.
type reshardFields struct {
	ET   string `dynamodbav:"et"`
	ID   int64  `dynamodbav:"id"`
	UUID string `dynamodbav:"uuid"`
	Type string `dynamodbav:"type"`
}

// moveListed re-keys the items of entity type et listed on the GSI1 partition old
// whose shard (target: GSI1PK and, when not empty, GSI2PK) is another one, each on
// condition that it is still listed on old. It returns how many it moved.
func (s *Store) moveListed(ctx context.Context, old, et string, target func(reshardFields) (gsi1, gsi2 string)) (int, error) {
	n := 0
	q := table.IndexListing(keys.GSI1, old, true)
	err := s.t.QueryPages(ctx, &q.In, func(items []map[string]types.AttributeValue) error {
		for _, it := range items {
			var f reshardFields
			if err := attributevalue.UnmarshalMap(it, &f); err != nil {
				return err
			}
			gsi1, gsi2 := target(f)
			if f.ET != et || gsi1 == old {
				continue
			}
			set, values := "SET GSI1PK = :new", map[string]types.AttributeValue{":new": table.SAttr(gsi1), ":old": table.SAttr(old)}
			if gsi2 != "" {
				set, values[":new2"] = set+", GSI2PK = :new2", table.SAttr(gsi2)
			}
			_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				Key:              map[string]types.AttributeValue{keys.PK: it[keys.PK], keys.SK: it[keys.SK]},
				UpdateExpression: aws.String(set), ConditionExpression: aws.String("GSI1PK = :old"),
				ExpressionAttributeValues: values})
			if errors.Is(table.Conflict(err), store.ErrConflict) {
				continue // rewritten (so re-keyed) or deleted meanwhile
			}
			if err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}
