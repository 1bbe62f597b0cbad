package imports

import (
	"context"
	"reflect"
	"strconv"

	"github.com/subsight/subsight/shared/model"
)

// EventID is the id of a subscription event of a data source: derived from its
// external id when it has one, else from what it says (customer, subscription, type
// and dates), so that sending the same event again updates it instead of adding one.
func EventID(accountID, dsUUID string, e model.EventFields) int64 {
	if e.ExternalID != "" {
		return model.EventIDFor("x", accountID, dsUUID, e.ExternalID)
	}
	return model.EventIDFor("c", accountID, dsUUID, e.CustomerExternalID, e.SubscriptionExternalID, e.EventType,
		strconv.FormatInt(e.EventDate.UnixNano(), 10), strconv.FormatInt(e.EffectiveDate.UnixNano(), 10))
}

// applyEvents writes the part's subscription events that are new or changed; an
// event whose plan does not exist fails alone.
func (r *applyRun) applyEvents(ctx context.Context, in []model.ImportEvent) (bool, error) {
	if len(in) == 0 {
		return false, nil
	}
	var idList []int64
	for _, e := range in {
		idList = append(idList, EventID(r.m.AccountID, r.m.DataSourceUUID, e.EventFields))
	}
	stored, err := r.p.Store.GetSubscriptionEvents(ctx, r.m.AccountID, idList)
	if err != nil {
		return false, err
	}
	now := r.p.Now()
	var out []model.SubscriptionEvent
	for i, e := range in {
		if e.PlanExternalID != nil && *e.PlanExternalID != "" {
			pl, err := r.plan(ctx, *e.PlanExternalID)
			if err != nil {
				return false, err
			}
			if pl == nil {
				r.fail(&r.st.SubscriptionEvents, e.ExternalID, "Plan %q does not exist in this data source", *e.PlanExternalID)
				continue
			}
		}
		ev := model.SubscriptionEvent{AccountID: r.m.AccountID, ID: idList[i], DataSourceUUID: r.m.DataSourceUUID,
			CustomerUUID: r.customer.UUID, EventFields: e.EventFields, CreatedAt: now, UpdatedAt: now}
		if old, ok := stored[ev.ID]; ok {
			ev.CreatedAt, ev.UpdatedAt = old.CreatedAt, old.UpdatedAt
			if reflect.DeepEqual(normalizeEvent(old), normalizeEvent(ev)) {
				continue
			}
			ev.UpdatedAt = now
		}
		out = append(out, ev)
	}
	if len(out) == 0 {
		return false, nil
	}
	// Indexed first, so that recompute finds every written event (an indexed id not yet
	// written is skipped).
	indexed := make(map[int64]int64, len(out))
	for _, ev := range out {
		indexed[ev.ID] = ev.EffectiveDate.Unix()
	}
	if err := r.p.Store.IndexSubscriptionEvents(ctx, r.m.AccountID, r.customer.UUID, indexed, nil); err != nil {
		return false, err
	}
	if err := r.p.Store.PutSubscriptionEvents(ctx, r.m.AccountID, out); err != nil {
		return false, err
	}
	return true, r.p.step("events")
}

func normalizeEvent(e model.SubscriptionEvent) model.SubscriptionEvent {
	e.EventDate, e.EffectiveDate = e.EventDate.UTC(), e.EffectiveDate.UTC()
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return e
}
