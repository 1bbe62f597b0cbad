package workers

import (
	"context"
	"log/slog"
	"os"
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/sqsworker"
)

// defaultMaxReceiveCount is the ImportQueue's redrive maxReceiveCount in
// template.yaml; IMPORT_MAX_RECEIVE_COUNT overrides it.
const defaultMaxReceiveCount = 5

// Import runs the import queue: one message per customer of a json_imports batch. The
// messages that leave the queue are counted in their account's import lane.
func Import(d *Deps) sqsworker.Handler {
	return ImportCounted(d.Imports, maxReceiveCount())
}

// ImportCounted is Import on a given pipeline.
func ImportCounted(p *imports.Pipeline, maxReceives int) sqsworker.Handler {
	return countLeaving(p, maxReceives, ImportWith(p, maxReceives))
}

func maxReceiveCount() int {
	if n, err := strconv.Atoi(os.Getenv("IMPORT_MAX_RECEIVE_COUNT")); err == nil && n > 0 {
		return n
	}
	return defaultMaxReceiveCount
}

// ImportWith is Import on a given pipeline (tests inject failures through it).
//
// The batch is applied in rounds: round k holds the k-th message of every customer
// (message group) of the batch, so a customer's records apply in order while the
// customers of a round share their reads and writes (imports.Pipeline.ApplyMessages).
// The first failure of a customer fails its later messages too, and one failing
// customer does not hold the others back. On the last attempt before the
// dead-letter queue the customer is marked failed in the import status, which is
// how the status shows a message that went to the DLQ.
func ImportWith(p *imports.Pipeline, maxReceives int) sqsworker.Handler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		groups := sqsworker.Groups(ev.Records)
		failedAt := make([]int, len(groups)) // the group's first failed message; len(group) if none
		for gi, g := range groups {
			failedAt[gi] = len(g)
		}
		for round := 0; ; round++ {
			var batch []imports.Delivery
			var from []int
			for gi, g := range groups {
				if round >= len(g) || failedAt[gi] < round {
					continue
				}
				msg := g[round]
				m, err := imports.DecodeMessage(msg.Body)
				if err != nil {
					// Nothing to mark: it goes to the dead-letter queue as it is.
					logImportFailure(ctx, msg, err, len(g)-round-1)
					failedAt[gi] = round
					continue
				}
				batch = append(batch, imports.Delivery{Message: m, Redelivered: receiveCount(msg) > 1})
				from = append(from, gi)
			}
			if len(batch) == 0 {
				break
			}
			for i, err := range p.ApplyMessages(ctx, batch) {
				gi := from[i]
				msg := groups[gi][round]
				if err == nil {
					slog.InfoContext(ctx, "import customer applied", "account_id", batch[i].AccountID,
						"import_id", batch[i].ImportID, "customer_external_id", batch[i].CustomerExternalID)
					continue
				}
				logImportFailure(ctx, msg, err, len(groups[gi])-round-1)
				failedAt[gi] = round
				if receiveCount(msg) >= maxReceives {
					if merr := p.MarkFailed(ctx, batch[i].Message); merr != nil {
						slog.ErrorContext(ctx, "could not mark the customer failed", "error", merr.Error())
					}
				}
			}
		}
		return sqsworker.FailedFrom(groups, failedAt), nil
	}
}

func receiveCount(msg events.SQSMessage) int {
	n, _ := strconv.Atoi(msg.Attributes["ApproximateReceiveCount"])
	return n
}

func logImportFailure(ctx context.Context, msg events.SQSMessage, err error, laterInGroup int) {
	slog.ErrorContext(ctx, "import message failed", "message_id", msg.MessageId,
		"receive_count", msg.Attributes["ApproximateReceiveCount"], "error", err.Error(), "later_failed", laterInGroup)
}
