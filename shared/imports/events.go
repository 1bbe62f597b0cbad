package imports

import (
	"reflect"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// EventID is the id of a subscription event of a data source: derived from its
// external id when it has one, else from what it says (customer, subscription, type
// and dates), so that sending the same event again updates it instead of adding one.
func EventID(accountID, dsUUID string, e model.EventFields) int64 {
	if e.ExternalID != "" {
		return model.ExternalEventID(accountID, dsUUID, e.ExternalID)
	}
	return model.EventIDFor("c", accountID, dsUUID, e.CustomerExternalID, e.SubscriptionExternalID, e.EventType,
		strconv.FormatInt(e.EventDate.UnixNano(), 10), strconv.FormatInt(e.EffectiveDate.UnixNano(), 10))
}

// mergeEvents keeps the part's subscription events that are new or changed; an
// event whose plan does not exist fails alone.
func (u *unit) mergeEvents(state store.ImportState, now time.Time) {
	for i, e := range u.part.Events {
		if e.PlanExternalID != nil && *e.PlanExternalID != "" {
			if _, ok := state.Plans[u.planRef(*e.PlanExternalID)]; !ok {
				u.fail(&u.st.SubscriptionEvents, e.ExternalID, "Plan %q does not exist in this data source", *e.PlanExternalID)
				continue
			}
		}
		id := u.eventIDs[i]
		if e.ExternalID != "" {
			if claimed, ok := state.EventClaims[u.planRef(e.ExternalID)]; ok {
				id = claimed // a PATCH gave this external id to another event: update that one
			} else if old, ok := state.Events[id]; ok && old.ExternalID != e.ExternalID {
				u.fail(&u.st.SubscriptionEvents, e.ExternalID,
					"The event created with external id %q now has external id %q; update it by that id", e.ExternalID, old.ExternalID)
				continue
			}
		}
		if old, ok := state.Events[id]; ok && old.CustomerUUID != u.customer.UUID {
			u.fail(&u.st.SubscriptionEvents, e.ExternalID, "Subscription event %q belongs to another customer", e.ExternalID)
			continue
		}
		ev := model.SubscriptionEvent{AccountID: u.m.AccountID, ID: id, DataSourceUUID: u.m.DataSourceUUID,
			CustomerUUID: u.customer.UUID, EventFields: e.EventFields, CreatedAt: now, UpdatedAt: now}
		u.events[ev.ID] = ev.EffectiveDate.Unix()
		if old, ok := state.Events[ev.ID]; ok {
			// An import never changes whether the event is disabled.
			ev.CreatedAt, ev.UpdatedAt, ev.DisabledState = old.CreatedAt, old.UpdatedAt, old.DisabledState
			if reflect.DeepEqual(normalizeEvent(old), normalizeEvent(ev)) {
				continue
			}
			ev.UpdatedAt = now
		}
		u.changedEvents = append(u.changedEvents, ev)
	}
}

func normalizeEvent(e model.SubscriptionEvent) model.SubscriptionEvent {
	e.EventDate, e.EffectiveDate = e.EventDate.UTC(), e.EffectiveDate.UTC()
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return e
}
