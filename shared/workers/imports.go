package workers

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"sync"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/sqsworker"
)

// defaultMaxReceiveCount is the ImportQueue's redrive maxReceiveCount in
// template.yaml; IMPORT_MAX_RECEIVE_COUNT overrides it.
const defaultMaxReceiveCount = 5

// Import runs the import queue: one message per customer of a json_imports batch.
func Import(d *app.Deps) sqsworker.Handler {
	return ImportWith(imports.New(d), maxReceiveCount())
}

func maxReceiveCount() int {
	if n, err := strconv.Atoi(os.Getenv("IMPORT_MAX_RECEIVE_COUNT")); err == nil && n > 0 {
		return n
	}
	return defaultMaxReceiveCount
}

// ImportWith is Import on a given pipeline (tests inject failures through it).
//
// Messages of different message groups (customers) in one batch run in parallel;
// within a group they run in batch order and the first failure fails the rest of that
// group, so a customer's records never apply out of order while one failing customer
// does not hold the others back. On the last attempt before the dead-letter queue,
// the customer is marked failed in the import status, which is how the status shows
// a message that went to the DLQ.
func ImportWith(p *imports.Pipeline, maxReceives int) sqsworker.Handler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var groups [][]events.SQSMessage
		index := map[string]int{}
		for _, msg := range ev.Records {
			g := msg.Attributes["MessageGroupId"]
			i, ok := index[g]
			if !ok || g == "" {
				i = len(groups)
				index[g] = i
				groups = append(groups, nil)
			}
			groups[i] = append(groups[i], msg)
		}
		failed := make([][]string, len(groups))
		var wg sync.WaitGroup
		for gi, group := range groups {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, msg := range group {
					if err := applyImportMessage(ctx, p, msg, maxReceives); err != nil {
						slog.ErrorContext(ctx, "import message failed", "message_id", msg.MessageId,
							"receive_count", msg.Attributes["ApproximateReceiveCount"], "error", err.Error(),
							"later_failed", len(group)-i-1)
						for _, rest := range group[i:] {
							failed[gi] = append(failed[gi], rest.MessageId)
						}
						return
					}
				}
			}()
		}
		wg.Wait()
		var resp events.SQSEventResponse
		for _, ids := range failed {
			for _, id := range ids {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
			}
		}
		return resp, nil
	}
}

func applyImportMessage(ctx context.Context, p *imports.Pipeline, msg events.SQSMessage, maxReceives int) error {
	m, err := imports.DecodeMessage(msg.Body)
	if err != nil {
		return err // nothing to mark: it goes to the dead-letter queue as it is
	}
	st, err := p.ApplyMessage(ctx, m)
	if err != nil {
		if n, _ := strconv.Atoi(msg.Attributes["ApproximateReceiveCount"]); n >= maxReceives {
			if merr := p.MarkFailed(ctx, m); merr != nil {
				slog.ErrorContext(ctx, "could not mark the customer failed", "error", merr.Error())
			}
		}
		return err
	}
	slog.InfoContext(ctx, "import customer applied", "account_id", m.AccountID, "import_id", m.ImportID,
		"status", st.Status)
	return nil
}
