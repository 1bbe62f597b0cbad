package billing

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// SetInvoiceStatus changes the status of inv (as read) to status with one UpdateItem that
// touches only the status and updated_at. It is conditional on the invoice still
// belonging to inv's customer and still having the status it was read with, so a
// concurrent change is never overwritten: ErrConflict then, and the caller re-reads.
// It returns the invoice as stored afterwards. Status "" removes the status (issued).
func (s *Store) SetInvoiceStatus(ctx context.Context, inv model.Invoice, status string, now time.Time) (model.Invoice, error) {
	ua, err := attributevalue.Marshal(now)
	if err != nil {
		return model.Invoice{}, err
	}
	cond := "customer_uuid = :c AND attribute_not_exists(st)"
	vals := map[string]types.AttributeValue{":c": table.SAttr(inv.CustomerUUID), ":st": table.SAttr(status), ":ua": ua}
	if inv.Status != "" {
		cond = "customer_uuid = :c AND st = :from"
		vals[":from"] = table.SAttr(inv.Status)
	}
	update := "SET st = :st, ua = :ua"
	if status == "" {
		update = "SET ua = :ua REMOVE st"
		delete(vals, ":st")
	}
	out, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                       table.KeyAttrs(keys.Invoice(inv.AccountID, inv.UUID)),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeValues: vals,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return model.Invoice{}, table.Conflict(err)
	}
	var it InvoiceItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return model.Invoice{}, err
	}
	return it.Invoice(inv.AccountID), nil
}
