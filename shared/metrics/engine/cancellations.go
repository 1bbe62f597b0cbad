package engine

import (
	"slices"
	"time"
)

// collectCancellations fills each subscription's cancellation history: cancelled_at on line
// items plus cancellation events, unless cancellation_dates were set through the subscriptions
// API, which replace the whole history (§1.6).
func collectCancellations(in Input, byKey map[string]*subscription) {
	for _, s := range byKey {
		for _, it := range s.items {
			if !it.CancelledAt.IsZero() {
				s.cancellations = append(s.cancellations, it.CancelledAt)
			}
		}
	}
	for _, h := range in.CancellationHistory {
		if s := byKey[subscriptionKey(h.DataSourceUUID, h.SubscriptionExternalID)]; s != nil {
			s.cancellations = append([]time.Time(nil), h.Dates...)
		}
	}
	for _, s := range byKey {
		slices.SortFunc(s.cancellations, time.Time.Compare)
		s.cancellations = slices.CompactFunc(s.cancellations, time.Time.Equal)
	}
}

// cancellationSteps dates each cancellation per the churn recognition of the
// subscription's source (§4.2). churn_at_click needs nothing here: for a source with its
// own rules the cancellation events already carry the decision date (cancellationDate);
// other sources fall back to the time of cancellation.
func (s *subscription) cancellationSteps(set Settings) []*step {
	var out []*step
	for i, c := range s.cancellations {
		at := c
		if set.ChurnRecognition == ChurnAtPeriodEnd {
			if end, ok := s.periodEndCovering(c); ok {
				if s.restartsWithin(c, end) {
					continue // a new period began before the paid one ran out: nothing churned
				}
				at = end
			}
		}
		out = append(out, &step{at: at, kind: stepCancel, sub: s, seq: -len(s.cancellations) + i})
	}
	return out
}

// restartsWithin: a service period starts in (from, to].
func (s *subscription) restartsWithin(from, to time.Time) bool {
	for _, it := range s.items {
		if it.ServicePeriodStart.After(from) && !it.ServicePeriodStart.After(to) {
			return true
		}
	}
	return false
}
