package table

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Packed stores a nested value (an invoice's line items, an index's maps) as one
// JSON string attribute instead of a DynamoDB list or map. Nothing reads inside such
// values with expressions, DynamoDB bills the same bytes either way, and a flat
// string costs far less to encode and decode than typed nested attributes, on
// Lambda and in the emulator alike (moto is about four times slower on nested items,
// docs/benchmarks.md). Values written before packing (lists and maps) still decode.
type Packed[T any] struct{ V T }

func (p Packed[T]) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	b, err := json.Marshal(p.V)
	if err != nil {
		return nil, err
	}
	return &types.AttributeValueMemberS{Value: string(b)}, nil
}

func (p *Packed[T]) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return json.Unmarshal([]byte(v.Value), &p.V)
	case *types.AttributeValueMemberL, *types.AttributeValueMemberM:
		return attributevalue.Unmarshal(av, &p.V)
	case *types.AttributeValueMemberNULL:
		return nil
	}
	return fmt.Errorf("Packed attribute of unexpected type %T", av)
}
