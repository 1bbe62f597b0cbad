package testenv

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/workers"
)

// Drain feeds a queue to its worker, as Lambda's event source does, until it is
// empty; a failed batch or item fails the test. Draining the import queue runs the
// import lanes' feeder too (it waits for the feeder queue's delay), as the import
// queue only receives what the feeder sends.
func Drain(t testing.TB, d *app.Deps, queueURL string, handler sqsworker.Handler) {
	t.Helper()
	feeds := ""
	if queueURL == d.Config.ImportQueueURL {
		feeds = d.Config.ImportFeedQueueURL
	}
	for idle := 0; idle < 2; {
		busy := drainBatch(t, d, queueURL, handler)
		if feeds != "" {
			fed := drainBatch(t, d, feeds, workers.ImportFeeder(d.Workers()))
			if !busy && !fed && delayed(t, d, feeds) > 0 {
				time.Sleep(100 * time.Millisecond) // the next feed waits for the feeder queue's delay
				fed = true
			}
			busy = busy || fed
		}
		if busy {
			idle = 0
		} else {
			idle++
		}
	}
}

// DrainJobs feeds the three lanes of jobs (the jobs queue, the recompute queue, the
// series fold queue) to the jobs worker until all are empty: what a change, an import
// or a wake-up asks for is then done and shows in the metrics.
// A fold waits in its queue for a second first (its DelaySeconds).
func (e *Env) DrainJobs(t testing.TB, handler sqsworker.Handler) {
	t.Helper()
	for idle := 0; idle < 2; {
		busy := false
		for _, q := range []string{e.JobsQueueURL, e.RecomputeQueueURL, e.SeriesFoldQueueURL} {
			for drainBatch(t, e.Deps, q, handler) {
				busy = true
			}
		}
		switch {
		case busy:
			idle = 0
		case delayed(t, e.Deps, e.SeriesFoldQueueURL) > 0:
			time.Sleep(100 * time.Millisecond)
		default:
			idle++
		}
	}
}

// DrainImports feeds the import queue to the import worker (on e.Workers) until it is
// empty.
func (e *Env) DrainImports(t testing.TB) {
	t.Helper()
	Drain(t, e.Deps, e.ImportQueueURL, workers.Import(e.Workers))
}

// DrainWorkers drains the import queue, then the jobs the imports asked for (DrainJobs,
// the jobs worker on e.Workers): an import is then applied and shows in the metrics.
func (e *Env) DrainWorkers(t testing.TB) {
	t.Helper()
	e.DrainImports(t)
	e.DrainJobs(t, workers.Jobs(e.Workers))
}

// delayed is how many messages of a queue wait for their delay to pass.
func delayed(t testing.TB, d *app.Deps, queueURL string) int {
	t.Helper()
	out, err := d.Clients.SQS.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed}})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed)])
	return n
}

// drainBatch runs one batch of the queue through its worker and deletes it; false when
// the queue had nothing to receive.
func drainBatch(t testing.TB, d *app.Deps, queueURL string, handler sqsworker.Handler) bool {
	t.Helper()
	ctx := context.Background()
	c := d.Clients.SQS
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) == 0 {
		return false
	}
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
	return true
}
