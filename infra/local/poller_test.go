package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestPollerEarlyRedelivery: a worker that asks for its failed messages back sooner
// than the retry delay (sqsworker.Redeliverer, as for a throttle) gets them back then,
// a group's messages together and in order; the retry delay here is a minute.
func TestPollerEarlyRedelivery(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := testStack.deps.Clients.SQS
	name := fmt.Sprintf("early-%d.fifo", time.Now().UnixNano())
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name),
		Attributes: map[string]string{"FifoQueue": "true", "VisibilityTimeout": "360"}})
	if err != nil {
		t.Fatal(err)
	}
	url := aws.ToString(q.QueueUrl)
	defer c.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl})

	early := &earlyReleases{}
	var mu sync.Mutex
	var batches [][]string
	handler := func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		var bodies []string
		for _, r := range ev.Records {
			bodies = append(bodies, r.Body)
		}
		batches = append(batches, bodies)
		if len(batches) > 1 {
			return events.SQSEventResponse{}, nil
		}
		// The first batch fails whole and asks for an early redelivery.
		var resp events.SQSEventResponse
		for _, r := range ev.Records {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
		}
		return resp, early.Redeliver(ctx, ev.Records, 50*time.Millisecond)
	}
	p := &poller{sqs: c, queueURL: url, queueARN: "arn:aws:sqs:us-east-1:123456789012:" + name, queue: "EarlyQueue",
		region: "us-east-1", function: "EarlyWorker", batchSize: 10, reportFailures: true, handler: handler,
		timeout: 10 * time.Second, retryDelay: time.Minute, early: early, wait: 1}
	send(t, url, "A", "A1", "A2")
	done := make(chan struct{})
	go func() { p.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "the redelivery", 20*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, b := range batches {
			n += len(b)
		}
		return n >= 4
	})
	mu.Lock()
	defer mu.Unlock()
	var order []string
	for _, b := range batches {
		order = append(order, b...)
	}
	if !slices.Equal(order, []string{"A1", "A2", "A1", "A2"}) {
		t.Errorf("deliveries %v, want A1 A2 twice, in order", batches)
	}
}
