package accounts

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type dataSourceItem struct {
	PK        string    `dynamodbav:"PK"`
	SK        string    `dynamodbav:"SK"`
	ET        string    `dynamodbav:"et"`
	AccountID string    `dynamodbav:"account_id"`
	UUID      string    `dynamodbav:"uuid"`
	Name      string    `dynamodbav:"name"`
	System    string    `dynamodbav:"system"`
	Status    string    `dynamodbav:"status"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

func (it dataSourceItem) dataSource() model.DataSource {
	return model.DataSource{AccountID: it.AccountID, UUID: it.UUID, Name: it.Name, System: it.System,
		Status: it.Status, CreatedAt: it.CreatedAt}
}

// CreateDataSource stores a new data source.
func (s *Store) CreateDataSource(ctx context.Context, ds model.DataSource) error {
	k := keys.DataSource(ds.AccountID, ds.UUID)
	return s.t.PutNew(ctx, dataSourceItem{PK: k.PK, SK: k.SK, ET: keys.TypeDataSource, AccountID: ds.AccountID,
		UUID: ds.UUID, Name: ds.Name, System: ds.System, Status: ds.Status, CreatedAt: ds.CreatedAt})
}

// GetDataSource reads a data source, including one being deleted.
func (s *Store) GetDataSource(ctx context.Context, accountID, dsUUID string) (model.DataSource, error) {
	return table.GetOne(ctx, s.t, keys.DataSource(accountID, dsUUID), func(it dataSourceItem) model.DataSource { return it.dataSource() })
}

// ListDataSources returns every data source of the account in creation order
// (an account has few, so one query reads them all).
func (s *Store) ListDataSources(ctx context.Context, accountID string) ([]model.DataSource, error) {
	var items []dataSourceItem
	if err := s.t.QueryPrefix(ctx, keys.AccountPartition(accountID), keys.DataSourcePrefix, &items); err != nil {
		return nil, err
	}
	out := make([]model.DataSource, len(items))
	for i, it := range items {
		out[i] = it.dataSource()
	}
	return out, nil
}

// MarkDataSourceDeleting hides a data source from the API until its data is purged.
func (s *Store) MarkDataSourceDeleting(ctx context.Context, accountID, dsUUID string) error {
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                      table.KeyAttrs(keys.DataSource(accountID, dsUUID)),
		ConditionExpression:      aws.String(table.ItemExists),
		UpdateExpression:         aws.String("SET #st = :d"),
		ExpressionAttributeNames: map[string]string{"#st": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":d": &types.AttributeValueMemberS{Value: model.DataSourceDeleting},
		},
	})
	return table.NotFoundOnCondition(err)
}

// DeleteDataSource removes the data source item itself (after its data is gone).
func (s *Store) DeleteDataSource(ctx context.Context, accountID, dsUUID string) error {
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key: table.KeyAttrs(keys.DataSource(accountID, dsUUID)),
	})
	return err
}

// DeletePartition deletes every item of a partition, 25 at a time; used by purges,
// which run in the jobs worker and are safe to repeat.
func (s *Store) DeletePartition(ctx context.Context, pk string) (int, error) {
	return s.DeletePartitionExcept(ctx, pk, "")
}

// DeletePartitionExcept deletes the items of a partition whose sort key does not start
// with keep ("" keeps nothing), 25 at a time.
func (s *Store) DeletePartitionExcept(ctx context.Context, pk, keep string) (int, error) {
	deleted, _, err := s.DeletePartitionWhile(ctx, pk, keep, func() bool { return true })
	return deleted, err
}

// DeletePartitionWhile is DeletePartitionExcept asking more() before each page of keys
// it reads; done is false when it stopped with items left.
func (s *Store) DeletePartitionWhile(ctx context.Context, pk, keep string, more func() bool) (deleted int, done bool, err error) {
	p := dynamodb.NewQueryPaginator(s.t, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("PK = :pk"),
		ProjectionExpression:      aws.String("PK, SK"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
	})
	for p.HasMorePages() {
		if !more() {
			return deleted, false, nil
		}
		page, err := p.NextPage(ctx)
		if err != nil {
			return deleted, false, err
		}
		doomed := page.Items
		if keep != "" {
			doomed = slices.DeleteFunc(slices.Clone(page.Items), func(item map[string]types.AttributeValue) bool {
				sk, ok := item["SK"].(*types.AttributeValueMemberS)
				return ok && strings.HasPrefix(sk.Value, keep)
			})
		}
		if err := s.t.BatchDelete(ctx, doomed); err != nil {
			return deleted, false, err
		}
		deleted += len(doomed)
	}
	return deleted, true, nil
}

// ImportIDs lists the ids of a data source's imports (from their locators), whose
// per-customer status items live in partitions of their own.
func (s *Store) ImportIDs(ctx context.Context, accountID, dsUUID string) ([]string, error) {
	var items []struct {
		SK string `dynamodbav:"SK"`
	}
	if err := s.t.QueryPrefix(ctx, keys.DataSourcePartition(accountID, dsUUID), keys.ImportLocatorPrefix, &items); err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = strings.TrimPrefix(it.SK, keys.ImportLocatorPrefix)
	}
	return out, nil
}
