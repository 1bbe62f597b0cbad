package series

import (
	"context"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/crm"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// UpdateCustomerMetrics writes only the metrics attributes of a customer item read at
// version, and bumps the version, so that a concurrent full-item save of the customer
// (which checks the version) re-reads instead of restoring stale figures. ErrConflict
// when the customer changed since it was read, ErrNotFound when it is gone.
func (s *Store) UpdateCustomerMetrics(ctx context.Context, accountID, customerUUID string, version int64, m store.CustomerMetrics) error {
	vals := map[string]types.AttributeValue{
		":mrr": &types.AttributeValueMemberN{Value: strconv.FormatInt(m.MRR, 10)},
		":arr": &types.AttributeValueMemberN{Value: strconv.FormatInt(m.ARR, 10)},
		":st":  table.SAttr(m.Status),
		":v":   &types.AttributeValueMemberN{Value: strconv.FormatInt(version, 10)},
		":one": &types.AttributeValueMemberN{Value: "1"},
	}
	set := []string{"mrr = :mrr", "arr = :arr", "#st = :st", "active_quantity = :aq"}
	vals[":aq"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(m.ActiveQuantity, 10)}
	var remove []string
	if len(m.BillingCurrencies) > 0 {
		cur, err := attributevalue.Marshal(m.BillingCurrencies)
		if err != nil {
			return err
		}
		vals[":cur"] = cur
		set = append(set, "billing_currencies = :cur")
	} else {
		remove = append(remove, "billing_currencies")
	}
	if m.CustomerSince != nil {
		since, err := attributevalue.Marshal(m.CustomerSince.UTC())
		if err != nil {
			return err
		}
		vals[":since"] = since
		set = append(set, "customer_since = :since")
	} else {
		remove = append(remove, "customer_since")
	}
	update := ""
	if len(remove) > 0 {
		update = " REMOVE " + strings.Join(remove, ", ")
	}
	if len(m.AddTags) > 0 {
		tags, err := attributevalue.Marshal(m.AddTags)
		if err != nil {
			return err
		}
		vals[":tags"], vals[":none"] = tags, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
		set = append(set, "tags = list_append(if_not_exists(tags, :none), :tags)")
	}
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                       table.KeyAttrs(keys.Customer(accountID, customerUUID)),
		UpdateExpression:          aws.String("SET " + strings.Join(set, ", ") + " ADD version :one" + update),
		ConditionExpression:       aws.String("attribute_exists(PK) AND version = :v"),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: vals,
	})
	if err = table.Conflict(err); err == store.ErrConflict {
		if _, gerr := s.customers.GetCustomer(ctx, accountID, customerUUID); gerr == store.ErrNotFound {
			return store.ErrNotFound
		}
	}
	return err
}

// CustomerUUIDByExternalID finds the customer holding an external id in a data source,
// from the customers' uniqueness item (a consistent read). ErrNotFound when none.
func (s *Store) CustomerUUIDByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (string, error) {
	var it crm.UniqueItem
	if err := s.t.Get(ctx, keys.CustomerExternalID(accountID, dsUUID, externalID), &it); err != nil {
		return "", err
	}
	if it.CustomerUUID == "" {
		return "", store.ErrNotFound
	}
	return it.CustomerUUID, nil
}
