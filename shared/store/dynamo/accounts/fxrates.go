package accounts

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type fxRateItem struct {
	PK       string `dynamodbav:"PK"`
	SK       string `dynamodbav:"SK"`
	ET       string `dynamodbav:"et"`
	Currency string `dynamodbav:"currency"`
	Rate     string `dynamodbav:"rate"`
}

// PutFXRates stores rates of the account, replacing those of the same day and currency.
func (s *Store) PutFXRates(ctx context.Context, accountID string, rates []store.FXRate) error {
	var reqs []types.WriteRequest
	for _, r := range rates {
		k := keys.FXRate(accountID, r.Currency, r.Day)
		av, err := attributevalue.MarshalMap(fxRateItem{PK: k.PK, SK: k.SK, ET: keys.TypeFXRate, Currency: r.Currency, Rate: r.Rate})
		if err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
	}
	return s.t.BatchWrite(ctx, reqs)
}

// FXRatesBetween reads the rates of one currency from day from to day to (inclusive),
// keyed by day.
func (s *Store) FXRatesBetween(ctx context.Context, accountID, currency, from, to string) (map[string]float64, error) {
	in := &dynamodb.QueryInput{
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :from AND :to"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": table.SAttr(keys.FXRates(accountID, currency)), ":from": table.SAttr(from), ":to": table.SAttr(to),
		},
	}
	out := map[string]float64{}
	err := s.t.QueryPages(ctx, in, func(page []map[string]types.AttributeValue) error {
		var items []fxRateItem
		if err := attributevalue.UnmarshalListOfMaps(page, &items); err != nil {
			return err
		}
		for _, it := range items {
			v, err := strconv.ParseFloat(it.Rate, 64)
			if err != nil {
				return err
			}
			out[it.SK] = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
