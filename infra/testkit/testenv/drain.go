package testenv

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/sqsworker"
)

// Drain feeds a queue to its worker, as Lambda's event source does, until it is
// empty; a failed batch or item fails the test.
func Drain(t testing.TB, d *app.Deps, queueURL string, handler sqsworker.Handler) {
	t.Helper()
	ctx := context.Background()
	c := d.Clients.SQS
	for idle := 0; idle < 2; {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			idle++
			continue
		}
		idle = 0
		ev := events.SQSEvent{}
		for _, m := range out.Messages {
			ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body),
				Attributes: m.Attributes})
		}
		if resp, err := handler(ctx, ev); err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("worker: %v %+v", err, resp)
		}
		for _, m := range out.Messages {
			if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
