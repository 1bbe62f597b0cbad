package dynamo

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// Only the operator's command erases accounts: no function's role may scan the table.
var _ store.AccountErasure = (*Store)(nil)

// eraseScanSegments is how many segments of the table the account's erasure scans at
// once.
const eraseScanSegments = 4

// CloseAccount makes the account unusable before anything else of it is deleted: the
// keys' lookup items, the data sources' Stripe connections (which admit webhook
// deliveries), the rate item, then the account item (store.AccountErasure).
func (s *Store) CloseAccount(ctx context.Context, accountID string) error {
	ks, err := s.ListAPIKeys(ctx, accountID)
	if err != nil {
		return err
	}
	sources, err := s.ListDataSources(ctx, accountID)
	if err != nil {
		return err
	}
	var gates []map[string]types.AttributeValue
	for _, k := range ks {
		if k.Hash != "" {
			gates = append(gates, table.KeyAttrs(keys.APIKeyByHash(k.Hash)))
		}
	}
	for _, ds := range sources {
		gates = append(gates, table.KeyAttrs(keys.StripeConnection(ds.UUID)))
	}
	gates = append(gates, table.KeyAttrs(keys.AccountRate(accountID)))
	if err := s.t.BatchDelete(ctx, gates); err != nil {
		return err
	}
	_, err = s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{Key: table.KeyAttrs(keys.Account(accountID))})
	return err
}

// EraseAccountItems deletes every item whose partition key is the account's (the
// account partition or one that begins with the account id and "#") and the
// account's Stripe connections (global items that name the account): a parallel scan
// of the whole table, projecting only the keys, each segment deleting what it finds
// page by page. No index can list an account's partitions, and an erasure is rare
// enough to pay a scan of the table for it (store.AccountErasure).
func (s *Store) EraseAccountItems(ctx context.Context, accountID string) (int, error) {
	var mu sync.Mutex
	total := 0
	errs := make([]error, eraseScanSegments)
	parallel.For(eraseScanSegments, eraseScanSegments, func(seg int) {
		p := dynamodb.NewScanPaginator(s.t, &dynamodb.ScanInput{
			Segment:                  aws.Int32(int32(seg)),
			TotalSegments:            aws.Int32(eraseScanSegments),
			ProjectionExpression:     aws.String("PK, SK"),
			FilterExpression:         aws.String("PK = :account OR begins_with(PK, :prefix) OR (#et = :conn AND account_id = :id)"),
			ExpressionAttributeNames: map[string]string{"#et": keys.EntityType},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":account": &types.AttributeValueMemberS{Value: keys.AccountPartition(accountID)},
				":prefix":  &types.AttributeValueMemberS{Value: keys.Partition(accountID)},
				":conn":    &types.AttributeValueMemberS{Value: keys.TypeStripeConnection},
				":id":      &types.AttributeValueMemberS{Value: accountID},
			},
			ConsistentRead: aws.Bool(true),
		})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				errs[seg] = err
				return
			}
			if err := s.t.BatchDelete(ctx, page.Items); err != nil {
				errs[seg] = err
				return
			}
			mu.Lock()
			total += len(page.Items)
			mu.Unlock()
		}
	})
	for _, err := range errs {
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
