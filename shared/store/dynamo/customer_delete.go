package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// DeleteCustomer removes a customer with its contacts, e-mail index, contact e-mail
// items, CRM records and their locators, external id reservations, and its name in the
// status of the imports that carried it. The customer item goes last, in one
// transaction with its reservations, so a failure half-way leaves a customer that a
// repeated DELETE removes.
func (s *Store) DeleteCustomer(ctx context.Context, c model.Customer) error {
	// Invoices, subscriptions and events live outside the partition; their index is in it.
	if err := s.DeleteCustomerBilling(ctx, c.AccountID, c.UUID); err != nil {
		return err
	}
	contacts, err := s.CustomerContacts(ctx, c.AccountID, c.UUID)
	if err != nil {
		return err
	}
	var doomed []map[string]types.AttributeValue
	for _, con := range contacts {
		doomed = append(doomed, table.KeyAttrs(keys.Contact(c.AccountID, con.UUID)))
	}
	// The partition also holds what other areas keep per customer (notes, invoices,
	// subscriptions), so it can exceed one Query page.
	partition, err := s.t.QueryAll(ctx, &dynamodb.QueryInput{
		KeyConditionExpression: aws.String("PK = :pk"),
		ProjectionExpression:   aws.String("PK, SK"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: keys.CustomerPartition(c.AccountID, c.UUID)},
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return err
	}
	main := keys.Customer(c.AccountID, c.UUID)
	for _, k := range partition {
		sk, _ := k[keys.SK].(*types.AttributeValueMemberS)
		if sk == nil || sk.Value != main.SK {
			doomed = append(doomed, k)
		}
		if sk == nil {
			continue
		}
		// A note's, opportunity's or task's locator lives outside the partition.
		if loc, ok := keys.RecordLocatorOf(c.AccountID, sk.Value); ok {
			doomed = append(doomed, table.KeyAttrs(loc))
		}
	}
	if err := s.t.BatchDelete(ctx, doomed); err != nil {
		return err
	}
	if err := s.importStore.EraseImportStatuses(ctx, c); err != nil {
		return err
	}
	items := []types.TransactWriteItem{{Delete: &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(main)}}}
	for i, ds := range c.DataSourceUUIDs {
		if i < len(c.ExternalIDs) {
			items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: s.t.Name(),
				Key:                       table.KeyAttrs(keys.CustomerExternalID(c.AccountID, ds, c.ExternalIDs[i])),
				ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":c": &types.AttributeValueMemberS{Value: c.UUID}},
			}})
		}
	}
	return table.Conflict(s.t.TransactWrite(ctx, items))
}
