package billing

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// SaveInvoice writes next over old (the invoice as read), with its line items and
// transactions, in one PutItem conditional on the invoice still belonging to old's
// customer and being unchanged since it was read (its updated_at): store.ErrConflict when
// another writer got there first, and the caller re-reads. next.UpdatedAt must be new.
func (s *Store) SaveInvoice(ctx context.Context, old, next model.Invoice) error {
	av, err := attributevalue.MarshalMap(NewInvoiceItem(next))
	if err != nil {
		return err
	}
	readAt, err := attributevalue.Marshal(old.UpdatedAt)
	if err != nil {
		return err
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{
		Item:                      av,
		ConditionExpression:       aws.String("customer_uuid = :c AND ua = :ua"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": table.SAttr(old.CustomerUUID), ":ua": readAt},
	})
	return table.Conflict(err)
}
