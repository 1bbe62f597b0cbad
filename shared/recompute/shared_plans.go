package recompute

import (
	"context"
	"sync"

	"github.com/subsight/subsight/shared/model"
)

// sharedPlans is the store for the customers of one batch: each plan, and each plan's
// uuid by external id, is read once for all of them (customers of one account mostly
// share a few plans), even when several ask at once. A plan changed during the batch
// is seen by the next batch, as it would be by a recomputation that started a moment
// earlier.
type sharedPlans struct {
	Storage
	mu    sync.Mutex
	plans map[[3]string]func() (model.Plan, error)
	uuids map[[3]string]func() (string, error)
}

// GetPlanInDataSource reads a plan once per batch.
func (s *sharedPlans) GetPlanInDataSource(ctx context.Context, accountID, dsUUID, planUUID string) (model.Plan, error) {
	s.mu.Lock()
	if s.plans == nil {
		s.plans = map[[3]string]func() (model.Plan, error){}
	}
	k := [3]string{accountID, dsUUID, planUUID}
	read, ok := s.plans[k]
	if !ok {
		read = sync.OnceValues(func() (model.Plan, error) {
			return s.Storage.GetPlanInDataSource(context.WithoutCancel(ctx), accountID, dsUUID, planUUID)
		})
		s.plans[k] = read
	}
	s.mu.Unlock()
	return read()
}

// PlanUUIDByExternalID resolves a plan's external id once per batch.
func (s *sharedPlans) PlanUUIDByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (string, error) {
	s.mu.Lock()
	if s.uuids == nil {
		s.uuids = map[[3]string]func() (string, error){}
	}
	k := [3]string{accountID, dsUUID, externalID}
	read, ok := s.uuids[k]
	if !ok {
		read = sync.OnceValues(func() (string, error) {
			return s.Storage.PlanUUIDByExternalID(context.WithoutCancel(ctx), accountID, dsUUID, externalID)
		})
		s.uuids[k] = read
	}
	s.mu.Unlock()
	return read()
}
