package recompute

import (
	"context"
	"sync"

	"github.com/subsight/subsight/shared/model"
)

// sharedPlans is the store for the customers of one batch: each plan, each plan's
// uuid by external id and each data source's Stripe connection (its own rules) is read
// once for all of them (customers of one account mostly share a few plans and data
// sources), even when several ask at once. A plan or setting changed during the batch
// is seen by the next batch, as it would be by a recomputation that started a moment
// earlier; the change's own recomputations come after it.
type sharedPlans struct {
	Storage
	mu    sync.Mutex
	plans map[[3]string]func() (model.Plan, error)
	uuids map[[3]string]func() (string, error)
	conns map[[3]string]func() (model.StripeConnection, error)
}

// readOnce is the read of key k, shared by every caller of the batch: the first one
// reads (without its cancellation, since others wait for it).
func readOnce[V any](ctx context.Context, s *sharedPlans, reads *map[[3]string]func() (V, error), k [3]string, read func(context.Context) (V, error)) (V, error) {
	s.mu.Lock()
	if *reads == nil {
		*reads = map[[3]string]func() (V, error){}
	}
	r, ok := (*reads)[k]
	if !ok {
		r = sync.OnceValues(func() (V, error) { return read(context.WithoutCancel(ctx)) })
		(*reads)[k] = r
	}
	s.mu.Unlock()
	return r()
}

// GetPlanInDataSource reads a plan once per batch.
func (s *sharedPlans) GetPlanInDataSource(ctx context.Context, accountID, dsUUID, planUUID string) (model.Plan, error) {
	return readOnce(ctx, s, &s.plans, [3]string{accountID, dsUUID, planUUID}, func(ctx context.Context) (model.Plan, error) {
		return s.Storage.GetPlanInDataSource(ctx, accountID, dsUUID, planUUID)
	})
}

// PlanUUIDByExternalID resolves a plan's external id once per batch.
func (s *sharedPlans) PlanUUIDByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (string, error) {
	return readOnce(ctx, s, &s.uuids, [3]string{accountID, dsUUID, externalID}, func(ctx context.Context) (string, error) {
		return s.Storage.PlanUUIDByExternalID(ctx, accountID, dsUUID, externalID)
	})
}

// GetStripeConnection reads a data source's connection once per batch.
func (s *sharedPlans) GetStripeConnection(ctx context.Context, dsUUID string) (model.StripeConnection, error) {
	return readOnce(ctx, s, &s.conns, [3]string{dsUUID}, func(ctx context.Context) (model.StripeConnection, error) {
		return s.Storage.GetStripeConnection(ctx, dsUUID)
	})
}
