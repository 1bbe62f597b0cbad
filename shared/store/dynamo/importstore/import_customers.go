package importstore

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// ReserveCustomerIDs draws n integer customer ids at once (one write for a whole
// import) and returns the last; the ids are last-n+1 .. last. Ids reserved for
// customers that turn out to exist are simply never used.
func (s *Store) ReserveCustomerIDs(ctx context.Context, accountID string, n int) (int64, error) {
	out, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                      table.KeyAttrs(keys.Counter(accountID, keys.CustomerIDCounter)),
		UpdateExpression:         aws.String("ADD #n :k SET et = :et"),
		ExpressionAttributeNames: map[string]string{"#n": "n"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":k":  &types.AttributeValueMemberN{Value: strconv.Itoa(n)},
			":et": table.SAttr(keys.TypeCounter),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, err
	}
	v, ok := out.Attributes["n"].(*types.AttributeValueMemberN)
	if !ok {
		return 0, errors.New("customer id counter: no value returned")
	}
	return strconv.ParseInt(v.Value, 10, 64)
}
