package emulator

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestTransactionsWhileOthersWrite: unpatched moto fails a TransactWriteItems with a
// 500 ("dictionary changed size during iteration") when another request writes to
// the table meanwhile, which the local stack does all the time (an import worker
// writing while an API call runs a transaction). motoserver.py's dynamodb-serial makes
// the DynamoDB backend's operations take turns; every transaction must succeed.
func TestTransactionsWhileOthersWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := sharedClients(t).DynamoDB
	table := fmt.Sprintf("threads-%d", time.Now().UnixNano())
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: &table, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	item := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}}
	}
	var stop atomic.Bool
	var writes atomic.Int64
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				var reqs []types.WriteRequest
				for j := range 25 {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item(fmt.Sprintf("w%d-%d-%d", w, i, j))}})
				}
				if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
					t.Error(err)
					return
				}
				writes.Add(1)
			}
		})
	}
	for writes.Load() < 3 {
		time.Sleep(10 * time.Millisecond)
	}
	// Without the SDK's retries, which would hide a failed attempt.
	noRetries := func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }
	for i := range 50 {
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: &table, Item: item(fmt.Sprintf("t%d", i)), ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		}}, noRetries)
		if err != nil {
			t.Errorf("transaction %d while %d batch writes ran: %v", i, writes.Load(), err)
		}
	}
	stop.Store(true)
	wg.Wait()
}
