package accountseries

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/engine"
)

// SeedCustomer is one customer for Seed.
type SeedCustomer struct {
	Result *engine.Result
	Attrs  CustomerAttrs
}

// ErrNotEmpty is Seed's refusal of an account that already has series.
var ErrNotEmpty = errors.New("accountseries: the account already has series")

// Seed stores many customers into an account that has no series yet, leaving exactly
// what Apply would leave for each of them, but summing the buckets in memory and
// writing each bucket item once with BatchWriteItem (no transactions). It is for
// backfills and benchmarks, never concurrently with Apply on the same account; an
// account whose "all" index item exists is refused with ErrNotEmpty.
func Seed(ctx context.Context, d *app.Deps, accountID string, customers []SeedCustomer) error {
	db := newDB(d)
	probe, err := db.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &db.table, ConsistentRead: aws.Bool(true),
		Key: keyOf(keys.Key{PK: keys.SeriesPartition(accountID, segmentAll), SK: keys.SeriesIndexSK})})
	if err != nil {
		return err
	}
	if probe.Item != nil {
		return ErrNotEmpty
	}
	acc, err := d.Store.GetAccount(ctx, accountID)
	if err != nil {
		return fmt.Errorf("accountseries: read account: %w", err)
	}
	cal := Calendar(acc)
	total := Cells{}
	var reqs []types.WriteRequest
	put := func(item map[string]types.AttributeValue) {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	for _, c := range customers {
		sc := seriesCustomer(c.Result, c.Attrs)
		acts := activitiesOf(accountID, c.Attrs, sc.Movements)
		cells := customerCells(sc, cal)
		for k, v := range cells {
			total.add(k, v)
		}
		st := state{Cells: Cells{}}.successor(versionOf(cal, c.Attrs, sc.Movements, acts, sc.ExchangeRateImpacts...), cells, acts)
		st.Pending, st.ActsPrev, st.ActsDone = nil, nil, true
		record, err := encodeState(accountID, c.Attrs.UUID, st)
		if err != nil {
			return err
		}
		put(record)
		for _, a := range acts {
			av, err := attributevalue.MarshalMap(a)
			if err != nil {
				return err
			}
			put(av)
		}
	}
	for _, u := range total.updates() {
		item := keyOf(keys.Key{PK: keys.SeriesPartition(accountID, u.Segment), SK: u.SK})
		item[keys.EntityType] = s(entityOf(u.SK))
		for attr, v := range u.Add {
			item[attr] = n(v)
		}
		put(item)
	}
	return db.store.BatchWrite(ctx, reqs)
}
