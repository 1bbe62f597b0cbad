package store

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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

// PlanPage is one page of plans in creation order.
type PlanPage struct {
	Plans   []model.Plan
	LastKey map[string]types.AttributeValue
	HasMore bool
}

// ListPlans reads one page of the account's plans in creation order, after start (a
// LastKey of an earlier page of the same filter). The most selective key answers:
// external id (GSI2), else data source (its partition), else the account (GSI1); the
// other filters are filter expressions.
func (s *Store) ListPlans(ctx context.Context, accountID string, f PlanFilter, limit int,
	start map[string]types.AttributeValue) (PlanPage, error) {
	in, keyNames := planQuery(accountID, f)
	page, err := s.queryKeyPage(ctx, in, keyNames, limit, start)
	if err != nil {
		return PlanPage{}, err
	}
	var items []planItem
	if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
		return PlanPage{}, err
	}
	out := PlanPage{Plans: make([]model.Plan, len(items)), LastKey: page.LastKey, HasMore: page.HasMore}
	for i, it := range items {
		out.Plans[i] = it.plan()
	}
	return out, nil
}

// CountPlans counts the plans that match f (for the legacy total_pages field).
func (s *Store) CountPlans(ctx context.Context, accountID string, f PlanFilter) (int, error) {
	in, _ := planQuery(accountID, f)
	return s.countQuery(ctx, in)
}

func planQuery(accountID string, f PlanFilter) (*dynamodb.QueryInput, []string) {
	vals := map[string]types.AttributeValue{}
	names := map[string]string{}
	var filters []string
	in := &dynamodb.QueryInput{}
	var keyNames []string
	switch {
	case f.ExternalID != "":
		in.IndexName = aws.String(keys.GSI2)
		in.KeyConditionExpression = aws.String("GSI2PK = :pk")
		vals[":pk"] = sAttr(keys.PlansByExternalID(accountID, f.ExternalID))
		keyNames = []string{keys.PK, keys.SK, keys.GSI2PK, keys.GSI2SK}
		if f.DataSourceUUID != "" {
			filters = append(filters, "data_source_uuid = :ds")
			vals[":ds"] = sAttr(f.DataSourceUUID)
		}
	case f.DataSourceUUID != "":
		in.KeyConditionExpression = aws.String("PK = :pk AND begins_with(SK, :plan)")
		in.ConsistentRead = aws.Bool(true)
		vals[":pk"] = sAttr(keys.DataSourcePartition(accountID, f.DataSourceUUID))
		vals[":plan"] = sAttr(keys.PlanPrefix)
		keyNames = []string{keys.PK, keys.SK}
	default:
		in.IndexName = aws.String(keys.GSI1)
		in.KeyConditionExpression = aws.String("GSI1PK = :pk")
		vals[":pk"] = sAttr(keys.PlansByAccount(accountID))
		keyNames = []string{keys.PK, keys.SK, keys.GSI1PK, keys.GSI1SK}
	}
	if f.System != "" {
		filters = append(filters, "#system = :system")
		names["#system"] = "system"
		vals[":system"] = sAttr(f.System)
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	in.ExpressionAttributeValues = vals
	return in, keyNames
}
