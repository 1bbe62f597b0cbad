package workers

import (
	"context"
	"errors"

	"github.com/subsight/subsight/shared/jobs"
)

// StripeBackfiller runs the steps of Stripe backfills (stripebackfill.Runner).
type StripeBackfiller interface {
	// Step runs one step of the job's backfill; more: it goes on in another step.
	Step(ctx context.Context, job jobs.Message) (more bool, err error)
	// Fail marks the job's backfill failed (its message leaves for the dead-letter queue).
	Fail(ctx context.Context, job jobs.Message, cause error)
}

// backfillStripe runs a step of a Stripe backfill; the next step, when there is one, is
// sent by continued.
func backfillStripe(ctx context.Context, d *Deps, job jobs.Message) error {
	if d.StripeBackfill == nil {
		return errors.New("workers: no Stripe backfiller is wired")
	}
	more, err := d.StripeBackfill.Step(ctx, job)
	if err != nil || !more {
		return err
	}
	return &moreSteps{}
}
