// Package sqsfake holds test doubles of the SQS adapters the workers are given.
package sqsfake

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Redeliveries records what a worker asks to redeliver early (sqsworker.Redeliverer):
// the messages' ids in order, and the last delay asked for.
type Redeliveries struct {
	IDs   []string
	Delay time.Duration
}

// Redeliver records msgs and delay.
func (r *Redeliveries) Redeliver(_ context.Context, msgs []events.SQSMessage, delay time.Duration) error {
	for _, m := range msgs {
		r.IDs = append(r.IDs, m.MessageId)
	}
	r.Delay = delay
	return nil
}
