package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/devstack/lambdaevents"
	"github.com/subsight/subsight/shared/sqsworker"
)

// poller plays Lambda's SQS event source mapping for one queue and function.
type poller struct {
	sqs            *sqs.Client
	queueURL       string
	queueARN       string
	queue          string // the queue's LogicalId
	region         string
	function       string
	batchSize      int
	reportFailures bool
	handler        sqsworker.Handler
	timeout        time.Duration // the function's Timeout
	// retryDelay is how long failed messages stay in flight before they are
	// released; on AWS it is the queue's visibility timeout (minutes).
	retryDelay time.Duration
	// early holds the shorter delays the worker asked for (throttled messages).
	early *earlyReleases
	wait  int32 // long-poll seconds

	releases sync.WaitGroup
	// shortUntil (unix nanoseconds) switches to short polling while failed messages
	// wait for their release: moto's long poll does not wake up for messages that
	// become visible again, so each retry would otherwise wait out a long poll.
	shortUntil atomic.Int64
	// received counts the messages received (each receive of a message once).
	received atomic.Int64
}

// received sums the messages the stack's pollers received, per queue.
func (s *stack) received() map[string]int64 {
	out := map[string]int64{}
	for _, p := range s.pollers {
		out[p.queue] += p.received.Load()
	}
	return out
}

// run polls until ctx ends. Errors of the emulator are logged and retried, as
// Lambda's poller does.
func (p *poller) run(ctx context.Context) {
	log := slog.With("queue", p.queueARN, "function", p.function)
	log.Info("poller started", "batch_size", p.batchSize)
	defer p.releases.Wait()
	for ctx.Err() == nil {
		n, err := p.pollOnce(ctx)
		if err != nil && ctx.Err() == nil {
			log.Error("poll failed", "error", err.Error())
			sleep(ctx, time.Second)
		} else if n == 0 && p.short() {
			sleep(ctx, 25*time.Millisecond)
		}
	}
}

// pollOnce receives one batch, invokes the function and settles the messages. It
// returns how many messages it received.
func (p *poller) short() bool { return time.Now().UnixNano() < p.shortUntil.Load() }

func (p *poller) pollOnce(ctx context.Context) (int, error) {
	wait := p.wait
	if p.short() {
		wait = 0
	}
	out, err := p.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(p.queueURL),
		MaxNumberOfMessages:         int32(min(p.batchSize, 10)),
		WaitTimeSeconds:             wait,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return 0, err
	}
	if len(out.Messages) == 0 {
		return 0, nil
	}
	p.received.Add(int64(len(out.Messages)))
	ev := lambdaevents.SQS(out.Messages, p.queueARN, p.region)
	failed := p.invoke(ctx, ev)

	var ok, bad []types.Message
	for _, m := range out.Messages {
		if failed[aws.ToString(m.MessageId)] {
			bad = append(bad, m)
		} else {
			ok = append(ok, m)
		}
	}
	// Use a context that survives shutdown: a processed message must be deleted.
	settle, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := p.deleteAll(settle, ok); err != nil {
		return len(out.Messages), err
	}
	if len(bad) > 0 {
		// Poll briefly instead of long-polling until the released messages are
		// back, or the next long poll would add up to its whole wait to each retry.
		p.shortUntil.Store(time.Now().Add(p.retryDelay + time.Second).UnixNano())
		byDelay := map[time.Duration][]types.Message{}
		for _, m := range bad {
			d := p.retryDelay
			if early, ok := p.early.take(aws.ToString(m.MessageId)); ok && early < d {
				d = early
			}
			byDelay[d] = append(byDelay[d], m)
		}
		for d, ms := range byDelay {
			p.releaseLater(ctx, ms, d)
		}
	}
	slog.Debug("batch done", "function", p.function, "received", len(out.Messages), "failed", len(bad))
	return len(out.Messages), nil
}

// invoke calls the worker and returns the ids of the messages to retry. A Go error
// or panic fails the whole batch, as Lambda does; so do item identifiers that are
// not in the batch.
func (p *poller) invoke(ctx context.Context, ev events.SQSEvent) map[string]bool {
	all := func() map[string]bool {
		m := map[string]bool{}
		for _, r := range ev.Records {
			m[r.MessageId] = true
		}
		return m
	}
	requestID := newRequestID()
	// The queue as the function ARN's qualifier: a function with several mappings (the
	// jobs worker's lanes) then shows which one invoked it, for the benchmarks' meters.
	hctx, cancel := lambdaContext(context.WithoutCancel(ctx), requestID, p.function+":"+p.queue, p.timeout)
	defer cancel()
	resp, err := func() (resp events.SQSEventResponse, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		return p.handler(hctx, ev)
	}()
	if err != nil {
		slog.Error("worker failed the batch", "function", p.function, "request_id", requestID, "error", err.Error())
		return all()
	}
	if !p.reportFailures {
		// Without ReportBatchItemFailures Lambda ignores the response.
		return nil
	}
	in := all()
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		if !in[f.ItemIdentifier] {
			slog.Error("worker reported an unknown item; the whole batch fails", "function", p.function, "item", f.ItemIdentifier)
			return in
		}
		failed[f.ItemIdentifier] = true
	}
	return failed
}

func (p *poller) deleteAll(ctx context.Context, ms []types.Message) error {
	for i := 0; i < len(ms); i += 10 {
		var entries []types.DeleteMessageBatchRequestEntry
		for j, m := range ms[i:min(i+10, len(ms))] {
			entries = append(entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(j)), ReceiptHandle: m.ReceiptHandle})
		}
		out, err := p.sqs.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(p.queueURL), Entries: entries})
		if err != nil {
			return err
		}
		if len(out.Failed) > 0 {
			return fmt.Errorf("delete: %s", aws.ToString(out.Failed[0].Message))
		}
	}
	return nil
}

// releaseLater keeps failed messages in flight for delay and then makes them
// visible with visibility timeout 0. Setting the timeout to delay directly
// would be simpler, but moto then redelivers a group's messages out of order
// (docs/local-stack.md, TestMotoBugFIFOReorderAfterVisibilityTimeout); releasing
// with 0 keeps the order. The group stays locked meanwhile, as on AWS. A group's
// failed messages of one batch share their delay (sqsworker.Backoff asks for the
// early redelivery of a group's whole failed tail), so they come back together.
func (p *poller) releaseLater(ctx context.Context, ms []types.Message, delay time.Duration) {
	p.releases.Add(1)
	go func() {
		defer p.releases.Done()
		select {
		case <-ctx.Done():
			return // shutting down: the emulator goes away with us
		case <-time.After(delay):
		}
		var entries []types.ChangeMessageVisibilityBatchRequestEntry
		for i, m := range ms {
			entries = append(entries, types.ChangeMessageVisibilityBatchRequestEntry{
				Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
		}
		out, err := p.sqs.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{
			QueueUrl: aws.String(p.queueURL), Entries: entries})
		if err == nil && len(out.Failed) > 0 {
			err = errors.New(aws.ToString(out.Failed[0].Message))
		}
		if err != nil && ctx.Err() == nil {
			// The messages come back anyway when the queue's visibility timeout ends.
			slog.Warn("release of failed messages", "function", p.function, "error", err.Error())
		}
	}()
}

// earlyReleases is the local stack's sqsworker.Redeliverer: it notes the delay a worker
// asks for, and the poller that invoked the worker releases the messages after it (if
// shorter than its retry delay) as it releases every failed message, by visibility 0.
// The worker's own ChangeMessageVisibility would let the messages time out in moto,
// which reorders a group (releaseLater).
type earlyReleases struct{ delays sync.Map } // message id -> time.Duration

func (e *earlyReleases) Redeliver(_ context.Context, msgs []events.SQSMessage, delay time.Duration) error {
	for _, m := range msgs {
		e.delays.Store(m.MessageId, delay)
	}
	return nil
}

// take returns and forgets the delay asked for the message.
func (e *earlyReleases) take(messageID string) (time.Duration, bool) {
	if e == nil {
		return 0, false
	}
	v, ok := e.delays.LoadAndDelete(messageID)
	if !ok {
		return 0, false
	}
	return v.(time.Duration), true
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
