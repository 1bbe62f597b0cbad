// Package fifo is the SQS implementation of a FIFO queue (queue.FIFO): single sends,
// and batches of ten that resend the entries a batch did not accept.
package fifo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/queue"
)

// Queue sends to one SQS FIFO queue.
type Queue struct {
	client *sqs.Client
	url    string
	// setting names the configuration variable of the URL, for the error when it is unset.
	setting string
}

var _ queue.FIFO = (*Queue)(nil)

// New returns the queue at url; setting names the variable it comes from (e.g.
// JOBS_QUEUE_URL), which a send without a URL reports.
func New(client *sqs.Client, url, setting string) *Queue {
	return &Queue{client: client, url: url, setting: setting}
}

func (q *Queue) configured() error {
	if q.url == "" {
		return fmt.Errorf("fifo: %s is not configured", q.setting)
	}
	return nil
}

// Send sends one message (SendMessage).
func (q *Queue) Send(ctx context.Context, m queue.Message) error {
	if err := q.configured(); err != nil {
		return err
	}
	_, err := q.client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               &q.url,
		MessageBody:            aws.String(m.Body),
		MessageGroupId:         aws.String(m.Group),
		MessageDeduplicationId: aws.String(m.DedupID),
	})
	return err
}

// maxBatch is SendMessageBatch's limit.
const maxBatch = 10

// SendBatch sends msgs in order, ten per request. Entries the queue failed for its own
// reasons are resent (up to five times); an entry it refuses as malformed is an error.
// Resending keeps the order within a group as long as a group has at most one message
// per call, which is how the callers use it. When every group appears once, the
// requests go at once.
func (q *Queue) SendBatch(ctx context.Context, msgs []queue.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	if err := q.configured(); err != nil {
		return err
	}
	batches := (len(msgs) + maxBatch - 1) / maxBatch
	if !distinctGroups(msgs) {
		for b := range batches {
			if err := q.sendBatch(ctx, msgs[b*maxBatch:min((b+1)*maxBatch, len(msgs))]); err != nil {
				return err
			}
		}
		return nil
	}
	// Each group once (an import's customers, a batch's recomputations): no order
	// between the requests to keep, so they go at once.
	errs := make([]error, batches)
	parallel.For(batches, sendConcurrency, func(b int) {
		errs[b] = q.sendBatch(ctx, msgs[b*maxBatch:min((b+1)*maxBatch, len(msgs))])
	})
	return errors.Join(errs...)
}

// sendConcurrency bounds the requests of one SendBatch in flight at once.
const sendConcurrency = 8

func distinctGroups(msgs []queue.Message) bool {
	seen := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		if seen[m.Group] {
			return false
		}
		seen[m.Group] = true
	}
	return true
}

func (q *Queue) sendBatch(ctx context.Context, msgs []queue.Message) error {
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
		out, err := q.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &q.url, Entries: entries})
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
