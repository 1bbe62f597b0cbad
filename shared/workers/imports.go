package workers

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/sqsworker"
)

// Import runs the import queue: one message per customer of a json_imports batch.
// The batch format is defined by the bulk-import pipeline; until a message of a known
// type arrives, anything else is rejected so that it ends in the dead-letter queue
// instead of being silently dropped.
func Import(d *app.Deps) sqsworker.Handler {
	return sqsworker.FIFO(func(ctx context.Context, msg events.SQSMessage) error {
		return fmt.Errorf("import: unsupported message %s", msg.MessageId)
	})
}
