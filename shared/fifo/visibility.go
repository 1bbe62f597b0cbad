package fifo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Visibility redelivers messages early on SQS with ChangeMessageVisibility (the
// worker's role needs sqs:ChangeMessageVisibility on its queues).
type Visibility struct {
	client *sqs.Client
	urls   map[string]string // queue name -> URL
}

// NewVisibility serves the queues with the given URLs (empty ones are skipped); a
// message's queue is found by the name at the end of its event source ARN.
func NewVisibility(client *sqs.Client, queueURLs ...string) *Visibility {
	v := &Visibility{client: client, urls: map[string]string{}}
	for _, u := range queueURLs {
		if u != "" {
			v.urls[u[strings.LastIndex(u, "/")+1:]] = u
		}
	}
	return v
}

// Redeliver sets the messages' visibility timeout to delay.
func (v *Visibility) Redeliver(ctx context.Context, msgs []events.SQSMessage, delay time.Duration) error {
	byQueue := map[string][]events.SQSMessage{}
	for _, m := range msgs {
		name := m.EventSourceARN[strings.LastIndex(m.EventSourceARN, ":")+1:]
		url, ok := v.urls[name]
		if !ok {
			return fmt.Errorf("fifo: no queue URL for %q", m.EventSourceARN)
		}
		byQueue[url] = append(byQueue[url], m)
	}
	var errs []error
	for url, ms := range byQueue {
		for i := 0; i < len(ms); i += 10 {
			var entries []types.ChangeMessageVisibilityBatchRequestEntry
			for j, m := range ms[i:min(i+10, len(ms))] {
				entries = append(entries, types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(j)),
					ReceiptHandle: aws.String(m.ReceiptHandle), VisibilityTimeout: int32(delay / time.Second)})
			}
			out, err := v.client.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url), Entries: entries})
			if err == nil && len(out.Failed) > 0 {
				err = errors.New(aws.ToString(out.Failed[0].Message))
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
