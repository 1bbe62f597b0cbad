// Package fifo sends messages to an SQS FIFO queue in batches of ten, resending the
// entries a batch did not accept.
package fifo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Message is one message to send.
type Message struct {
	Body    string
	Group   string
	DedupID string
}

// maxBatch is SendMessageBatch's limit.
const maxBatch = 10

// Send sends msgs in order, ten per request. Entries the queue failed for its own
// reasons are resent (up to five times); an entry it refuses as malformed is an error.
// Resending keeps the order within a group as long as a group has at most one message
// per call, which is how the callers use it.
func Send(ctx context.Context, client *sqs.Client, queueURL string, msgs []Message) error {
	for start := 0; start < len(msgs); start += maxBatch {
		if err := sendBatch(ctx, client, queueURL, msgs[start:min(start+maxBatch, len(msgs))]); err != nil {
			return err
		}
	}
	return nil
}

func sendBatch(ctx context.Context, client *sqs.Client, queueURL string, msgs []Message) error {
	entries := make([]types.SendMessageBatchRequestEntry, len(msgs))
	for i, m := range msgs {
		entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(m.Body),
			MessageGroupId: aws.String(m.Group), MessageDeduplicationId: aws.String(m.DedupID)}
	}
	for attempt := 0; len(entries) > 0; attempt++ {
		if attempt == 5 {
			return fmt.Errorf("fifo: %d messages not accepted by the queue", len(entries))
		}
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
		}
		out, err := client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &queueURL, Entries: entries})
		if err != nil {
			return err
		}
		failed := map[string]bool{}
		for _, f := range out.Failed {
			if f.SenderFault {
				return fmt.Errorf("fifo: queue refused a message: %s", aws.ToString(f.Message))
			}
			failed[aws.ToString(f.Id)] = true
		}
		var retry []types.SendMessageBatchRequestEntry
		for _, e := range entries {
			if failed[aws.ToString(e.Id)] {
				retry = append(retry, e)
			}
		}
		entries = retry
	}
	return nil
}
