package billing

import (
	"context"
	"errors"
	"maps"
	"strconv"

	"github.com/subsight/subsight/shared/store"
)

// IndexSubscriptionEvents adds events (id -> effective date, Unix seconds) to a
// customer's billing index and drops others, re-reading the index when another
// writer changed it meanwhile. Callers index an event before writing it and unindex
// it after deleting it: listings and recompute skip an indexed id that is absent.
func (s *Store) IndexSubscriptionEvents(ctx context.Context, accountID, customerUUID string, add map[int64]int64, drop []int64) error {
	for attempt := 0; attempt < 5; attempt++ {
		old, err := s.GetBillingIndex(ctx, accountID, customerUUID)
		if err != nil {
			return err
		}
		next := old.Clone()
		for id, at := range add {
			next.Events[strconv.FormatInt(id, 10)] = at
		}
		for _, id := range drop {
			delete(next.Events, strconv.FormatInt(id, 10))
		}
		if maps.Equal(old.Events, next.Events) {
			return nil
		}
		err = s.SaveBillingIndex(ctx, old, next)
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return errors.New("index subscription events: the customer's index kept changing")
}
