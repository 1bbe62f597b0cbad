package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
)

var _ store.LimitCounters = (*Store)(nil)

// Windows outlive their second or minute by a little, so that the table's time to live
// (which deletes expired items within days, not at once) never removes a live one.
const (
	requestWindowTTL = time.Minute
	recordsWindowTTL = 10 * time.Minute
)

// CountRequest adds one request to the account's window of one second: one UpdateItem
// (ADD, which creates the item) returning the new count; 1 write unit, the item
// being far below 1 KB.
func (s *Store) CountRequest(ctx context.Context, accountID string, second int64) (int64, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      keyAttrs(keys.RequestWindow(accountID, second)),
		UpdateExpression:         aws.String("ADD n :one SET #et = :et, #exp = :exp"),
		ExpressionAttributeNames: map[string]string{"#et": keys.EntityType, "#exp": keys.ExpiresAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": nAttr(1), ":et": sAttr(keys.TypeRequestWindow),
			":exp": nAttr(second + int64(requestWindowTTL/time.Second)),
		},
		ReturnValues:           types.ReturnValueUpdatedNew,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		// Throttled even after the SDK's retries (a transient throttle is retried like
		// any request's): the item takes far more writes than any limit admits.
		return 0, throttled(err)
	}
	var got struct {
		N int64 `dynamodbav:"n"`
	}
	if err := attributevalue.UnmarshalMap(out.Attributes, &got); err != nil {
		return 0, err
	}
	return got.N, nil
}

// CountImportRecords adds n records to the account's minute unless the window would
// pass limit: one conditional UpdateItem, so concurrent intakes never overshoot.
func (s *Store) CountImportRecords(ctx context.Context, accountID string, minute int64, n, limit int) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      keyAttrs(keys.ImportRecordsWindow(accountID, minute)),
		UpdateExpression:         aws.String("ADD n :n SET #et = :et, #exp = :exp"),
		ConditionExpression:      aws.String("attribute_not_exists(n) OR n <= :room"),
		ExpressionAttributeNames: map[string]string{"#et": keys.EntityType, "#exp": keys.ExpiresAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":n": nAttr(int64(n)), ":room": nAttr(int64(limit - n)), ":et": sAttr(keys.TypeImportRecords),
			":exp": nAttr(minute*60 + int64(recordsWindowTTL/time.Second)),
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return store.ErrQuotaExceeded
	}
	return throttled(err)
}

// UncountImportRecords takes n records back from a window.
func (s *Store) UncountImportRecords(ctx context.Context, accountID string, minute int64, n int) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       keyAttrs(keys.ImportRecordsWindow(accountID, minute)),
		UpdateExpression:          aws.String("ADD n :n"),
		ConditionExpression:       aws.String("attribute_exists(n)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": nAttr(-int64(n))},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	return notFoundOnCondition(err)
}

type importInFlightItem struct {
	PK             string    `dynamodbav:"PK"`
	SK             string    `dynamodbav:"SK"`
	ET             string    `dynamodbav:"et"`
	AccountID      string    `dynamodbav:"account_id"`
	ImportID       string    `dynamodbav:"import_id"`
	DataSourceUUID string    `dynamodbav:"data_source_uuid"`
	ExternalID     string    `dynamodbav:"external_id"`
	CreatedAt      time.Time `dynamodbav:"created_at"`
	ExpiresAt      int64     `dynamodbav:"expires_at"`
}

// ImportsInFlight lists the account's in-flight markers (one consistent query; a
// marker past its expiry that the time to live has not deleted yet is left out).
func (s *Store) ImportsInFlight(ctx context.Context, accountID string) ([]store.ImportInFlight, error) {
	var items []importInFlightItem
	if err := s.queryPrefix(ctx, keys.ImportsInFlightPartition(accountID), keys.ImportInFlightPrefix, &items); err != nil {
		return nil, err
	}
	now := s.now().Unix()
	var out []store.ImportInFlight
	for _, it := range items {
		if it.ExpiresAt > now {
			out = append(out, store.ImportInFlight{AccountID: it.AccountID, ImportID: it.ImportID,
				DataSourceUUID: it.DataSourceUUID, ExternalID: it.ExternalID, CreatedAt: it.CreatedAt})
		}
	}
	return out, nil
}

// PutImportInFlight writes a marker that expires after ttl.
func (s *Store) PutImportInFlight(ctx context.Context, m store.ImportInFlight, ttl time.Duration) error {
	k := keys.ImportInFlight(m.AccountID, m.ImportID)
	return s.put(ctx, importInFlightItem{PK: k.PK, SK: k.SK, ET: keys.TypeImportInFlight, AccountID: m.AccountID,
		ImportID: m.ImportID, DataSourceUUID: m.DataSourceUUID, ExternalID: m.ExternalID, CreatedAt: m.CreatedAt,
		ExpiresAt: m.CreatedAt.Add(ttl).Unix()})
}

// DeleteImportInFlight removes a marker.
func (s *Store) DeleteImportInFlight(ctx context.Context, accountID, importID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table,
		Key: keyAttrs(keys.ImportInFlight(accountID, importID)), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	return err
}

// ImportCustomersDone counts an import's customer status items: one Select COUNT query
// per shard (reads the items' size in read units, returns none of them).
func (s *Store) ImportCustomersDone(ctx context.Context, accountID, importID string) (int, error) {
	total := 0
	for _, pk := range keys.ImportCustomersPartitions(accountID, importID) {
		p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
			TableName:              &s.table,
			KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":pk": sAttr(pk), ":p": sAttr("CUS#"),
			},
			Select:                 types.SelectCount,
			ConsistentRead:         aws.Bool(true),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return 0, err
			}
			total += int(page.Count)
		}
	}
	return total, nil
}

// throttled maps DynamoDB's throttling errors to store.ErrThrottled.
func throttled(err error) error {
	if awsclients.Throttled(err) {
		return errors.Join(store.ErrThrottled, err)
	}
	return err
}
