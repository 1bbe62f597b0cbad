package workers_test

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/workers"
)

// TestWakeSweepRecomputesThroughTheJobsQueue: a customer whose service period ends is
// recomputed when the sweeper finds its wake-up due, through a real jobs-queue message
// and the jobs worker, and becomes Past Due.
func TestWakeSweepRecomputesThroughTheJobsQueue(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-01-15T00:00:00Z"), true)
	ctx := context.Background()
	f.AddInvoices(recomputetest.Monthly(1, recomputetest.At("2024-01-01T00:00:00Z"))...)
	handler := workers.Jobs(f.D.Workers())
	job := `{"type":"recompute_customer","account_id":"` + f.Acc.ID + `","customer_uuid":"` + f.Cust.UUID + `"}`
	for range 2 { // a redelivery changes nothing
		resp, err := handler(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: job}}})
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("recompute job: %v %+v", err, resp)
		}
	}
	if c := f.Customer(); c.Status != "Active" || c.MRR != 1000 {
		t.Fatalf("after the job: %q %d", c.Status, c.MRR)
	}
	if n, err := workers.SweepMetricsWakes(ctx, f.D.Workers()); err != nil || n != 0 {
		t.Fatalf("nothing is due yet: %d %v", n, err)
	}

	f.SetNow(recomputetest.At("2024-02-01T00:05:00Z"))
	if n, err := workers.SweepMetricsWakes(ctx, f.D.Workers()); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	out, err := f.D.Clients.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(f.Env.JobsQueueURL),
		MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("jobs queue: %v %+v", err, out)
	}
	msg := events.SQSMessage{MessageId: aws.ToString(out.Messages[0].MessageId), Body: aws.ToString(out.Messages[0].Body)}
	resp, err := handler(ctx, events.SQSEvent{Records: []events.SQSMessage{msg}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("woken job: %v %+v", err, resp)
	}
	if c := f.Customer(); c.Status != "Past Due" || c.MRR != 1000 {
		t.Fatalf("after the wake-up: %q %d", c.Status, c.MRR)
	}
	// The wake-up moved on (nothing else changes by itself): no more sweeps.
	if n, err := workers.SweepMetricsWakes(ctx, f.D.Workers()); err != nil || n != 0 {
		t.Fatalf("swept again: %d %v", n, err)
	}
}
