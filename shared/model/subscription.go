package model

import (
	"slices"
	"time"
)

// Subscription is generated from the subscription line items sharing a
// subscription_external_id in a data source (Import-API view).
type Subscription struct {
	AccountID                 string
	UUID                      string
	DataSourceUUID            string
	CustomerUUID              string
	ExternalID                string
	SubscriptionSetExternalID string
	// PlanUUID is the plan of the line item with the latest service period.
	PlanUUID string
	// LatestStart is that line item's service period start; an older line item does
	// not change the plan.
	LatestStart       time.Time
	CancellationDates []time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// ApplyLineItem folds a subscription line item into the subscription and reports
// whether anything changed.
func (s *Subscription) ApplyLineItem(li LineItem) bool {
	changed := false
	if li.SubscriptionSetExternalID != "" && s.SubscriptionSetExternalID != li.SubscriptionSetExternalID {
		s.SubscriptionSetExternalID = li.SubscriptionSetExternalID
		changed = true
	}
	if li.ServicePeriodStart != nil && !li.ServicePeriodStart.Before(s.LatestStart) &&
		(s.PlanUUID != li.PlanUUID || !s.LatestStart.Equal(*li.ServicePeriodStart)) {
		s.PlanUUID = li.PlanUUID
		s.LatestStart = *li.ServicePeriodStart
		changed = true
	}
	if li.CancelledAt != nil && !slices.ContainsFunc(s.CancellationDates, li.CancelledAt.Equal) {
		s.CancellationDates = append(s.CancellationDates, *li.CancelledAt)
		slices.SortFunc(s.CancellationDates, func(a, b time.Time) int { return a.Compare(b) })
		changed = true
	}
	return changed
}
