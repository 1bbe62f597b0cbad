package crm

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// MoveContact makes a contact into's, moving its e-mail reservation with it, in one
// transaction. ErrDuplicateEmail when into already has a contact with that e-mail.
func (s *Store) MoveContact(ctx context.Context, c model.Contact, into model.Customer) error {
	next := c
	next.CustomerUUID, next.CustomerExternalID = into.UUID, into.ExternalID
	next.Version, next.UpdatedAt = c.Version+1, s.t.Now()
	av, err := attributevalue.MarshalMap(newContactItem(next))
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{{Put: &types.Put{TableName: s.t.Name(), Item: av,
		ConditionExpression: aws.String("attribute_exists(PK) AND version = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(c.Version, 10)}}}}}
	if c.EmailValue() != "" {
		put, err := s.putEmail(next)
		if err != nil {
			return err
		}
		items = append(items, put, s.dropEmail(c))
	}
	err = s.t.TransactWrite(ctx, items)
	if table.ConditionFailedAt(err, 1) {
		return store.ErrDuplicateEmail
	}
	return table.Conflict(err)
}
