package recompute

import (
	"context"
	"errors"
	"strconv"

	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// customerEvents reads a customer's subscription events by id (those that moved to
// another customer are left out) and maps them to engine events; the
// plan of each is resolved from its external id in its data source (an unknown plan
// leaves PlanUUID empty, and the engine then ignores a start or update event). Only the
// uuid is read here: the plan itself is read once with the others (loadPlans), which
// also empties the PlanUUID of an event whose plan is gone.
func customerEvents(ctx context.Context, st eventStorage, accountID, customerUUID string, ids []int64) ([]engine.SubscriptionEvent, error) {
	byID, err := st.GetSubscriptionEvents(ctx, accountID, ids)
	if err != nil {
		return nil, err
	}
	plans := map[[2]string]string{}
	var out []engine.SubscriptionEvent
	for _, id := range ids {
		e, ok := byID[id]
		if !ok || e.CustomerUUID != customerUUID {
			continue
		}
		planUUID := ""
		if e.PlanExternalID != nil {
			k := [2]string{e.DataSourceUUID, *e.PlanExternalID}
			uuid, seen := plans[k]
			if !seen {
				found, err := st.PlanUUIDByExternalID(ctx, accountID, e.DataSourceUUID, *e.PlanExternalID)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					return nil, err
				}
				uuid, plans[k] = found, found
			}
			planUUID = uuid
		}
		out = append(out, engineEvent(accountID, e, planUUID))
	}
	return out, nil
}

// engineEvent maps a stored subscription event.
func engineEvent(accountID string, e model.SubscriptionEvent, planUUID string) engine.SubscriptionEvent {
	out := engine.SubscriptionEvent{ID: strconv.FormatInt(e.ID, 10), DataSourceUUID: e.DataSourceUUID,
		SubscriptionUUID:       model.SubscriptionUUID(accountID, e.DataSourceUUID, e.SubscriptionExternalID),
		SubscriptionExternalID: e.SubscriptionExternalID, PlanUUID: planUUID, EventType: e.EventType,
		EventDate: e.EventDate.UTC(), EffectiveDate: e.EffectiveDate.UTC(),
		AmountInCents: derefInt(e.AmountInCents), TaxAmountInCents: derefInt(e.TaxAmountInCents),
		Quantity: derefInt(e.Quantity), EventOrder: int(derefInt(e.EventOrder)), Disabled: e.Disabled}
	if e.SubscriptionSetExternalID != nil {
		out.SubscriptionSetExternalID = *e.SubscriptionSetExternalID
	}
	if e.Currency != nil {
		out.Currency = *e.Currency
	}
	if e.RetractedEventID != nil {
		out.RetractedEventID = strconv.FormatInt(*e.RetractedEventID, 10)
	}
	return out
}
