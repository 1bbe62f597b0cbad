package emulator

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// memoryGrowthLimit bounds how much the emulator's resident memory may grow while the
// same requests repeat. Plain moto keeps every item it ever stored or copied, and every
// message it ever received: the rounds below add about 25 MB to it (over 150 MB with its
// transactions' copies of the table).
const memoryGrowthLimit = 10 << 20

// TestMemoryStaysFlatWhileRequestsRepeat repeats the requests of an import on the same
// data: rewrite 300 items of about 1 KB, query an index partition of 100 of them,
// five transactions over three of them, ten messages sent, received and deleted. After a few
// rounds the emulator holds everything it will hold; 25 more rounds must leave its
// resident memory where it was (weak-instances: moto's registry of its model instances
// no longer keeps them alive); without the patch it grows past the limit.
func TestMemoryStaysFlatWhileRequestsRepeat(t *testing.T) {
	const patch = "weak-instances"
	eachPatchRun(t, []string{patch}, func(t *testing.T, r patchRun) {
		s, c := r.s, r.c
		ctx := context.Background()
		table := costTable(t, c.DynamoDB)
		q, err := c.SQS.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(fmt.Sprintf("memory-%d.fifo", time.Now().UnixNano())),
			Attributes: map[string]string{"FifoQueue": "true"}})
		if err != nil {
			t.Fatal(err)
		}
		pad := strings.Repeat("x", 900)
		sent := 0
		round := func() {
			for i := 0; i < 300; i += 25 {
				var reqs []types.WriteRequest
				for j := i; j < i+25; j++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
						"PK": str("item#" + strconv.Itoa(j)), "SK": str("A"), "GSI1PK": str("part#" + strconv.Itoa(j%3)),
						"GSI1SK": str(strconv.Itoa(j)), "data": str(pad)}}})
				}
				if _, err := c.DynamoDB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.DynamoDB.Query(ctx, &dynamodb.QueryInput{TableName: &table, IndexName: aws.String("GSI1"),
				KeyConditionExpression: aws.String("GSI1PK = :pk"), ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("part#1")}}); err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				var items []types.TransactWriteItem
				for j := range 3 {
					items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: &table,
						Key:              map[string]types.AttributeValue{"PK": str("item#" + strconv.Itoa(i*3+j)), "SK": str("A")},
						UpdateExpression: aws.String("SET n = :n"), ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "1"}}}})
				}
				if _, err := c.DynamoDB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
					t.Fatal(err)
				}
			}
			var entries []sqstypes.SendMessageBatchRequestEntry
			for range 10 {
				sent++
				id := strconv.Itoa(sent)
				entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(pad),
					MessageGroupId: aws.String("group-" + id), MessageDeduplicationId: aws.String(id)})
			}
			if _, err := c.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries}); err != nil {
				t.Fatal(err)
			}
			out, err := c.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
			if err != nil {
				t.Fatal(err)
			}
			var deletes []sqstypes.DeleteMessageBatchRequestEntry
			for i, m := range out.Messages {
				deletes = append(deletes, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
			}
			if _, err := c.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q.QueueUrl, Entries: deletes}); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 {
			round()
		}
		before := usage(t, s)
		for range 30 {
			round()
		}
		after := usage(t, s)
		t.Logf("emulator resident memory: %d MB after 3 rounds, %d MB after 30 more (peak %d MB)", before.RSS>>20, after.RSS>>20, after.PeakRSS>>20)
		grown := after.RSS - before.RSS
		switch {
		case r.patched(patch) && grown > memoryGrowthLimit:
			t.Errorf("the emulator's memory grew by %d MB while the same requests repeated (limit %d MB)", grown>>20, memoryGrowthLimit>>20)
		case !r.patched(patch) && grown <= memoryGrowthLimit:
			t.Errorf("without %s the emulator's memory grew by %d MB only (limit %d MB): the patch is not what keeps it flat", patch, grown>>20, memoryGrowthLimit>>20)
		}
	})
}
