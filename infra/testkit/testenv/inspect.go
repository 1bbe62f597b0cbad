package testenv

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/keys"
)

// ReceiveJobs receives and deletes every message of the jobs queue, decoded.
func (e *Env) ReceiveJobs(t testing.TB) []jobs.Message {
	t.Helper()
	return e.ReceiveJobsFrom(t, e.JobsQueueURL)
}

// ReceiveJobsFrom receives and deletes every message of one of the jobs worker's
// queues (the jobs, recompute or fold queue), decoded.
func (e *Env) ReceiveJobsFrom(t testing.TB, queueURL string) []jobs.Message {
	t.Helper()
	ctx := context.Background()
	c := e.Deps.Clients.SQS
	var out []jobs.Message
	for {
		res, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL),
			MaxNumberOfMessages: 10, WaitTimeSeconds: 0})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Messages) == 0 {
			return out
		}
		for _, m := range res.Messages {
			job, err := jobs.Decode(aws.ToString(m.Body))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, job)
			if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queueURL),
				ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// PartitionSize counts the items of one partition of the table.
func (e *Env) PartitionSize(t testing.TB, pk string) int {
	t.Helper()
	p := dynamodb.NewQueryPaginator(e.Deps.Clients.DynamoDB, &dynamodb.QueryInput{TableName: aws.String(e.TableName),
		KeyConditionExpression:    aws.String(keys.PK + " = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead:            aws.Bool(true), Select: types.SelectCount})
	n := 0
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += int(page.Count)
	}
	return n
}
