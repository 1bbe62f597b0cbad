package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyPage is one page of a listing read with queryKeyPage.
type keyPage struct {
	Items []map[string]types.AttributeValue
	// LastKey is the key of the last item returned (nil when none): the cursor's content.
	LastKey map[string]types.AttributeValue
	// HasMore tells whether items exist after LastKey.
	HasMore bool
}

// queryKeyPage reads up to limit items of a query, starting after start. It reads one
// item beyond the page to answer has_more exactly, so an unfiltered page costs one
// request. With a FilterExpression it keeps reading until the page is full or the
// query is exhausted. keyNames are the attributes that identify an item in this query
// (table key plus the index key when in.IndexName is set).
func (s *Store) queryKeyPage(ctx context.Context, in *dynamodb.QueryInput, keyNames []string, limit int,
	start map[string]types.AttributeValue) (keyPage, error) {
	in.TableName = &s.table
	in.ExclusiveStartKey = start
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	var got []map[string]types.AttributeValue
	for {
		want := limit + 1 - len(got)
		if in.FilterExpression != nil {
			// Limit counts items evaluated before the filter; read a page's worth.
			want = limit + 1
		}
		in.Limit = aws.Int32(int32(want))
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return keyPage{}, err
		}
		got = append(got, out.Items...)
		if len(got) > limit {
			items := got[:limit]
			return keyPage{Items: items, LastKey: pickKey(items[limit-1], keyNames), HasMore: true}, nil
		}
		if len(out.LastEvaluatedKey) == 0 {
			p := keyPage{Items: got}
			if len(got) > 0 {
				p.LastKey = pickKey(got[len(got)-1], keyNames)
			}
			return p, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// countQuery counts the items of a query (with its filter), for the legacy
// total_pages field.
func (s *Store) countQuery(ctx context.Context, in *dynamodb.QueryInput) (int, error) {
	in.TableName = &s.table
	in.Select = types.SelectCount
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	n := 0
	for {
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return 0, err
		}
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func pickKey(item map[string]types.AttributeValue, names []string) map[string]types.AttributeValue {
	k := make(map[string]types.AttributeValue, len(names))
	for _, n := range names {
		k[n] = item[n]
	}
	return k
}

func sAttr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
