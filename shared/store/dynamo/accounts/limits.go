package accounts

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

var _ store.LimitCounters = (*Store)(nil)

// A window of import records outlives its minute by a little, so that the table's time
// to live (which deletes expired items within days, not at once) never removes a live
// one.
const recordsWindowTTL = 10 * time.Minute

// revokedKeysKept is how long the account's counter remembers a revoked key: longer
// than API Gateway caches an authorizer's answer (60 s), after which the authorizer
// itself finds the key gone.
const revokedKeysKept = 10 * time.Minute

// Attributes of the account's counter (keys.AccountRate).
const (
	rateSecond     = "sec"
	rateCount      = "n"
	revokedKeyAttr = "rk_" // + key id: when the key was revoked (Unix seconds)
)

// CountRequest adds one request to the account's count of its second: one UpdateItem on
// the account's counter (1 write unit, the item being far below 1 KB). In a new second
// it sets the count to one, otherwise it adds one; the hint picks which to try first,
// and a failed condition (ReturnValuesOnConditionCheckFailure) tells which was right.
// A request with a key id also requires the counter to exist (it is deleted first when
// the account is) and the key not to be among its revoked ones, in the same condition,
// so a revoked key stops at once at no extra cost.
func (s *Store) CountRequest(ctx context.Context, c store.RequestCount) (int64, error) {
	second, newWindow := c.Second, c.NewWindow
	for range 4 {
		in := countRequestInput(c, second, newWindow)
		out, err := s.t.UpdateItem(ctx, in)
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			var old struct {
				PK     string `dynamodbav:"PK"`
				Second int64  `dynamodbav:"sec"`
			}
			if err := attributevalue.UnmarshalMap(ccf.Item, &old); err != nil {
				return 0, err
			}
			if c.KeyID != "" && (old.PK == "" || ccf.Item[revokedKeyAttr+c.KeyID] != nil) {
				return 0, store.ErrRevoked
			}
			switch {
			case old.Second < second:
				newWindow = true
			case old.Second == second:
				newWindow = false
			default: // another process's clock is ahead: count in its second
				second, newWindow = old.Second, false
			}
			continue
		}
		if err != nil {
			// Throttled even after the SDK's retries (a transient throttle is retried
			// like any request's): the item takes far more writes than any limit admits.
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
	return 0, errors.New("request counter: second kept changing")
}

func countRequestInput(c store.RequestCount, second int64, newWindow bool) *dynamodb.UpdateItemInput {
	names := map[string]string{"#sec": rateSecond, "#n": rateCount}
	values := map[string]types.AttributeValue{":s": table.NAttr(second), ":one": table.NAttr(1)}
	update, cond := "ADD #n :one", "#sec = :s"
	if newWindow {
		update, cond = "SET #sec = :s, #n = :one, #et = :et", "(attribute_not_exists(#sec) OR #sec < :s)"
		names["#et"], values[":et"] = keys.EntityType, table.SAttr(keys.TypeAccountRate)
	}
	if c.KeyID != "" {
		names["#rk"] = revokedKeyAttr + c.KeyID
		cond = "attribute_exists(PK) AND attribute_not_exists(#rk) AND " + cond
	}
	return &dynamodb.UpdateItemInput{
		Key:                                 table.KeyAttrs(keys.AccountRate(c.AccountID)),
		UpdateExpression:                    &update,
		ConditionExpression:                 &cond,
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueUpdatedNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// ensureAccountRate creates the account's counter if it is missing (an account or key
// created before it, or a key created for an account whose counter a test removed).
func (s *Store) ensureAccountRate(ctx context.Context, accountID string) error {
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                       table.KeyAttrs(keys.AccountRate(accountID)),
		UpdateExpression:          aws.String("SET #et = :et"),
		ExpressionAttributeNames:  map[string]string{"#et": keys.EntityType},
		ExpressionAttributeValues: map[string]types.AttributeValue{":et": table.SAttr(keys.TypeAccountRate)},
	})
	return err
}

// markKeyRevoked records a revoked key on the account's counter, where the rate gate's
// condition meets it, and forgets keys revoked longer ago than any cached answer lives.
func (s *Store) markKeyRevoked(ctx context.Context, accountID, keyID string) error {
	res, err := s.t.GetItem(ctx, &dynamodb.GetItemInput{Key: table.KeyAttrs(keys.AccountRate(accountID)),
		ConsistentRead: aws.Bool(true)})
	if err != nil {
		return err
	}
	now := s.t.Now()
	names := map[string]string{"#et": keys.EntityType, "#new": revokedKeyAttr + keyID}
	update := "SET #et = :et, #new = :t"
	var stale []string
	for name, v := range res.Item {
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok || !strings.HasPrefix(name, revokedKeyAttr) || name == names["#new"] {
			continue
		}
		if at, err := strconv.ParseInt(n.Value, 10, 64); err == nil && now.Sub(time.Unix(at, 0)) > revokedKeysKept {
			ph := "#old" + strconv.Itoa(len(stale))
			names[ph] = name
			stale = append(stale, ph)
		}
	}
	if len(stale) > 0 {
		update += " REMOVE " + strings.Join(stale, ", ")
	}
	_, err = s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                       table.KeyAttrs(keys.AccountRate(accountID)),
		UpdateExpression:          &update,
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: map[string]types.AttributeValue{":et": table.SAttr(keys.TypeAccountRate), ":t": table.NAttr(now.Unix())},
	})
	return err
}

// CountImportRecords adds n records to the account's minute unless the window would
// pass limit: one conditional UpdateItem, so concurrent intakes never overshoot.
func (s *Store) CountImportRecords(ctx context.Context, accountID string, minute int64, n, limit int) error {
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                      table.KeyAttrs(keys.ImportRecordsWindow(accountID, minute)),
		UpdateExpression:         aws.String("ADD n :n SET #et = :et, #exp = :exp"),
		ConditionExpression:      aws.String("attribute_not_exists(n) OR n <= :room"),
		ExpressionAttributeNames: map[string]string{"#et": keys.EntityType, "#exp": keys.ExpiresAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":n": table.NAttr(int64(n)), ":room": table.NAttr(int64(limit - n)), ":et": table.SAttr(keys.TypeImportRecords),
			":exp": table.NAttr(minute*60 + int64(recordsWindowTTL/time.Second)),
		},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return store.ErrQuotaExceeded
	}
	return throttled(err)
}

// UncountImportRecords takes n records back from a window.
func (s *Store) UncountImportRecords(ctx context.Context, accountID string, minute int64, n int) error {
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                       table.KeyAttrs(keys.ImportRecordsWindow(accountID, minute)),
		UpdateExpression:          aws.String("ADD n :n"),
		ConditionExpression:       aws.String("attribute_exists(n)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": table.NAttr(-int64(n))},
	})
	return table.NotFoundOnCondition(err)
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
	if err := s.t.QueryPrefix(ctx, keys.ImportsInFlightPartition(accountID), keys.ImportInFlightPrefix, &items); err != nil {
		return nil, err
	}
	now := s.t.Now().Unix()
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
	return s.t.Put(ctx, importInFlightItem{PK: k.PK, SK: k.SK, ET: keys.TypeImportInFlight, AccountID: m.AccountID,
		ImportID: m.ImportID, DataSourceUUID: m.DataSourceUUID, ExternalID: m.ExternalID, CreatedAt: m.CreatedAt,
		ExpiresAt: m.CreatedAt.Add(ttl).Unix()})
}

// DeleteImportInFlight removes a marker.
func (s *Store) DeleteImportInFlight(ctx context.Context, accountID, importID string) error {
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key: table.KeyAttrs(keys.ImportInFlight(accountID, importID))})
	return err
}

// ImportCustomersDone counts an import's customer status items: one Select COUNT query
// per shard (reads the items' size in read units, returns none of them).
func (s *Store) ImportCustomersDone(ctx context.Context, accountID, importID string) (int, error) {
	total := 0
	for _, pk := range keys.ImportCustomersPartitions(accountID, importID) {
		p := dynamodb.NewQueryPaginator(s.t, &dynamodb.QueryInput{
			KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":pk": table.SAttr(pk), ":p": table.SAttr("CUS#"),
			},
			Select:         types.SelectCount,
			ConsistentRead: aws.Bool(true),
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
