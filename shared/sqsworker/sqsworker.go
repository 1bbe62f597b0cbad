// Package sqsworker runs SQS FIFO batches the way the service's workers must: in
// order, stopping at the first failure and reporting it and every later message as
// failed, so that one customer's records are never applied out of order.
package sqsworker

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/logsafe"
)

// Handler is the Lambda signature of an SQS worker with partial batch responses.
type Handler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// MessageFunc applies one message. Returning an error fails it (and every later one).
type MessageFunc func(ctx context.Context, msg events.SQSMessage) error

// FIFO builds a Handler that applies messages one by one in batch order.
func FIFO(apply MessageFunc) Handler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for i, msg := range ev.Records {
			if err := apply(ctx, msg); err != nil {
				slog.ErrorContext(ctx, "message failed", "message_id", msg.MessageId,
					"group", msg.Attributes["MessageGroupId"], "error", logsafe.Text(err.Error()),
					"later_failed", len(ev.Records)-i-1)
				for _, rest := range ev.Records[i:] {
					resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rest.MessageId})
				}
				return resp, nil
			}
		}
		return resp, nil
	}
}

// Groups splits a FIFO batch by message group, each group's messages in batch order,
// the groups in the order of their first message. Messages without a group (only
// tests send them) form one group.
func Groups(msgs []events.SQSMessage) [][]events.SQSMessage {
	var groups [][]events.SQSMessage
	index := map[string]int{}
	for _, msg := range msgs {
		g := msg.Attributes["MessageGroupId"]
		i, ok := index[g]
		if !ok {
			i = len(groups)
			index[g] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], msg)
	}
	return groups
}

// FailedFrom is the partial batch response of groups whose messages from failedAt[i]
// on (len(groups[i]) for none) failed.
func FailedFrom(groups [][]events.SQSMessage, failedAt []int) events.SQSEventResponse {
	var resp events.SQSEventResponse
	for gi, g := range groups {
		for _, msg := range g[failedAt[gi]:] {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
		}
	}
	return resp
}
