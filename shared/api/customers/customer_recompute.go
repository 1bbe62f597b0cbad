package customers

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
)

// seriesAttrsChanged tells whether an edit changes what the account series keep of the
// customer: the country (geo segments) and the name (activities). Other fields do not
// enter the metrics.
func seriesAttrsChanged(before, after model.Customer) bool {
	return before.Country != after.Country || before.Name != after.Name
}

// recomputeAfterEdit enqueues the customer's recomputation after a saved edit that
// changes its series attributes. The nonce is the saved version: a redelivered request
// is deduplicated by SQS, a later edit is not. A failed send is logged, not returned:
// the edit is saved, a retry of the request would find nothing left to change, and the
// customer's next recomputation (import, wake-up) picks the change up anyway.
func recomputeAfterEdit(ctx context.Context, d *api.Deps, before, after model.Customer) {
	if !seriesAttrsChanged(before, after) {
		return
	}
	err := d.Jobs.Send(ctx, jobs.Recompute(after.AccountID, after.UUID, "edit:v"+strconv.FormatInt(after.Version, 10)))
	if err != nil {
		slog.ErrorContext(ctx, "recomputation after a customer edit not enqueued", "customer_uuid", after.UUID, "error", err.Error())
	}
}
