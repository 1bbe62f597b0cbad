package series

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// cellsReadConcurrency bounds the BatchGetItems of 100 records one SeriesCells runs at
// once.
const cellsReadConcurrency = 8

// SeriesCells reads customers' contributions from their series records: eventually
// consistent BatchGetItems of 100 records (the key and the cells only), 8 at a time,
// each batch decoded as it arrives.
func (ss SeriesStorage) SeriesCells(ctx context.Context, accountID string, customerUUIDs []string) (map[string]map[string]int64, error) {
	s := ss.store
	byPK := map[string]string{}
	var keyList []map[string]types.AttributeValue
	for _, u := range customerUUIDs {
		k := keys.SeriesApplied(accountID, u)
		if _, seen := byPK[k.PK]; !seen && u != "" {
			byPK[k.PK] = u
			keyList = append(keyList, table.KeyAttrs(k))
		}
	}
	batches := (len(keyList) + 99) / 100
	parts := make([]map[string]map[string]int64, batches)
	errs := make([]error, batches)
	parallel.For(batches, cellsReadConcurrency, func(i int) {
		raw, err := s.t.BatchReadAttrs(ctx, keyList[i*100:min((i+1)*100, len(keyList))], false, []string{"PK", "cells"})
		if err != nil {
			errs[i] = err
			return
		}
		parts[i] = make(map[string]map[string]int64, len(raw))
		for _, item := range raw {
			pk, _ := item["PK"].(*types.AttributeValueMemberS)
			b, ok := item["cells"].(*types.AttributeValueMemberB)
			if pk == nil || byPK[pk.Value] == "" || !ok {
				continue
			}
			cells := map[string]int64{}
			if err := ungz(b.Value, &cells); err != nil {
				errs[i] = fmt.Errorf("series record of %s: cells: %w", byPK[pk.Value], err)
				return
			}
			parts[i][byPK[pk.Value]] = cells
		}
	})
	out := make(map[string]map[string]int64, len(keyList))
	for i, p := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for u, c := range p {
			out[u] = c
		}
	}
	return out, nil
}
