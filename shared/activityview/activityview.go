// Package activityview is how an account-wide activity (an MRR movement) is shown: the
// entries of GET /v1/activities and the rows of the activities export carry the same
// fields, in the same order.
package activityview

import (
	"time"

	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// Fields are the activity's fields as the recorded account-wide list shows them
// (docs/api.md, "Objects"), its date in the account's time zone loc.
func Fields(a store.Activity, currency string, loc *time.Location) jsonobj.Object {
	return jsonobj.Object{
		{Key: "description", Value: a.Description},
		{Key: "activity-mrr-movement", Value: a.Movement},
		{Key: "activity-mrr", Value: a.MRR},
		{Key: "activity-arr", Value: 12 * a.MRR},
		{Key: "date", Value: timefmt.Offset(a.Date.In(loc))},
		{Key: "type", Value: a.Type},
		{Key: "currency", Value: currency},
		{Key: "subscription-external-id", Value: a.SubscriptionExternalID},
		{Key: "subscription-set-external-id", Value: SetExternalID(a.SubscriptionSetExternalID, a.SubscriptionExternalID)},
		{Key: "plan-external-id", Value: a.PlanExternalID},
		{Key: "customer-name", Value: a.CustomerName},
		{Key: "customer-uuid", Value: a.CustomerUUID},
		{Key: "customer-external-id", Value: a.CustomerExternalID},
		{Key: "billing-connector-uuid", Value: a.DataSourceUUID},
		{Key: "uuid", Value: a.UUID},
	}
}

// SetExternalID is a subscription's set as the Metrics API shows it: a subscription
// imported without a set is its own set, named by its external id (recorded), never null.
func SetExternalID(set, subscription string) string {
	if set == "" {
		return subscription
	}
	return set
}
