package accountseries

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/keys"
)

// FilterSegments names every stored series a metrics request with these filters reads:
// Segments, plus, when several plans are asked, the combination segments of those plans
// that some customer contributes to (in the asked countries). Finding them costs one
// Query of the combination registry, whose size depends on the plan combinations the
// account's customers have, not on their number.
func FilterSegments(ctx context.Context, d *app.Deps, accountID string, countries, planUUIDs []string) ([]string, error) {
	out := Segments(countries, planUUIDs)
	if len(planUUIDs) < 2 {
		return out, nil
	}
	combos, err := newDB(d).combinations(ctx, accountID)
	if err != nil {
		return nil, err
	}
	for _, c := range combos {
		if !allIn(c.plans, planUUIDs) {
			continue
		}
		seg := combosSegment(c.plans)
		if len(countries) == 0 {
			if c.customers[comboAttrAll] > 0 {
				out = append(out, seg)
			}
			continue
		}
		for _, country := range countries {
			if c.customers[comboAttrAll+country] > 0 {
				out = append(out, geoPlanSegment(country, seg))
			}
		}
	}
	return out, nil
}

func allIn(plans, set []string) bool {
	for _, p := range plans {
		if !slices.Contains(set, p) {
			return false
		}
	}
	return true
}

// combination is one registry entry: its plans and its customers per registry attribute.
type combination struct {
	plans     []string
	customers map[string]int64
}

// combinations reads the account's combination registry (eventually consistent: a
// combination registered a moment ago is, like its buckets, visible a moment later).
func (db *db) combinations(ctx context.Context, accountID string) ([]combination, error) {
	p := dynamodb.NewQueryPaginator(db.client, &dynamodb.QueryInput{
		TableName:              &db.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": s(keys.SeriesPartition(accountID, segmentAll)), ":prefix": s(keys.SeriesComboPrefix)},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	var out []combination
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			sk, _ := item[keys.SK].(*types.AttributeValueMemberS)
			if sk == nil {
				continue
			}
			c := combination{plans: strings.Split(strings.TrimPrefix(sk.Value, keys.SeriesComboPrefix), "+"),
				customers: map[string]int64{}}
			for attr, v := range item {
				if !strings.HasPrefix(attr, comboAttrAll) {
					continue
				}
				if x, err := number(v); err == nil {
					c.customers[attr] = x
				}
			}
			out = append(out, c)
		}
	}
	return out, nil
}
