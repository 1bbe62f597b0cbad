package recompute

import (
	"context"

	"github.com/subsight/subsight/shared/metrics/engine"
)

// Compute runs the engine on a customer's stored records at the recomputer's clock and
// writes nothing: the customer's result as of then, committed MRR (its Scheduled
// movements) included, which no stored view keeps.
func (r *Recomputer) Compute(ctx context.Context, accountID, customerUUID string) (engine.Result, error) {
	acc, err := r.store.GetAccount(ctx, accountID)
	if err != nil {
		return engine.Result{}, err
	}
	res, _, err := r.compute(ctx, acc, customerUUID)
	return res, err
}
