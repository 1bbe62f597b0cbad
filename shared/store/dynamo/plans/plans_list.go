package plans

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// ListPlans reads one page of the account's plans in creation order, from start (the
// Next of an earlier page of the same filter). The most selective key answers:
// external id (GSI2), else data source (its partition), else the account (GSI1); the
// other filters are filter expressions.
func (s *Store) ListPlans(ctx context.Context, accountID string, f store.PlanFilter, limit int,
	start store.PageToken) (store.Page[model.Plan], error) {
	return table.ListPage(ctx, s.t, planQuery(accountID, f), limit, start, PlanItem.Plan, nil)
}

// CountPlans counts the plans that match f (for the legacy total_pages field).
func (s *Store) CountPlans(ctx context.Context, accountID string, f store.PlanFilter) (int, error) {
	n, _, err := table.CountMatching(ctx, s.t, planQuery(accountID, f), 0, PlanItem.Plan, nil)
	return n, err
}

func planQuery(accountID string, f store.PlanFilter) table.ListQuery {
	var q table.ListQuery
	switch {
	case f.ExternalID != "":
		q = table.IndexListing(keys.GSI2, keys.PlansByExternalID(accountID, f.ExternalID), true)
		if f.DataSourceUUID != "" {
			q.Where("data_source_uuid = :ds", nil, map[string]types.AttributeValue{":ds": table.SAttr(f.DataSourceUUID)})
		}
	case f.DataSourceUUID != "":
		q = table.PrefixListing(keys.DataSourcePartition(accountID, f.DataSourceUUID), keys.PlanPrefix)
	default:
		q = table.IndexListing(keys.GSI1, keys.PlansByAccount(accountID), true)
	}
	if f.System != "" {
		q.Where("#system = :system", map[string]string{"#system": "system"}, map[string]types.AttributeValue{":system": table.SAttr(f.System)})
	}
	return q
}
