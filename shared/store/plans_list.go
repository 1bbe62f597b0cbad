package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// PlanFilter selects plans of an account; empty fields do not filter. System is the
// stored billing-system name (see model.SystemFilter).
type PlanFilter struct {
	DataSourceUUID string
	ExternalID     string
	System         string
}

// ListPlans reads one page of the account's plans in creation order, from start (the
// Next of an earlier page of the same filter). The most selective key answers:
// external id (GSI2), else data source (its partition), else the account (GSI1); the
// other filters are filter expressions.
func (s *Store) ListPlans(ctx context.Context, accountID string, f PlanFilter, limit int,
	start PageToken) (Page[model.Plan], error) {
	return listPage(ctx, s, planQuery(accountID, f), limit, start, planItem.plan, nil)
}

// CountPlans counts the plans that match f (for the legacy total_pages field).
func (s *Store) CountPlans(ctx context.Context, accountID string, f PlanFilter) (int, error) {
	n, _, err := countMatching(ctx, s, planQuery(accountID, f), 0, planItem.plan, nil)
	return n, err
}

func planQuery(accountID string, f PlanFilter) listQuery {
	var q listQuery
	switch {
	case f.ExternalID != "":
		q = indexListing(keys.GSI2, keys.PlansByExternalID(accountID, f.ExternalID), true)
		if f.DataSourceUUID != "" {
			q.where("data_source_uuid = :ds", nil, map[string]types.AttributeValue{":ds": sAttr(f.DataSourceUUID)})
		}
	case f.DataSourceUUID != "":
		q = prefixListing(keys.DataSourcePartition(accountID, f.DataSourceUUID), keys.PlanPrefix)
	default:
		q = indexListing(keys.GSI1, keys.PlansByAccount(accountID), true)
	}
	if f.System != "" {
		q.where("#system = :system", map[string]string{"#system": "system"}, map[string]types.AttributeValue{":system": sAttr(f.System)})
	}
	return q
}
