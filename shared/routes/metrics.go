package routes

import "github.com/subsight/subsight/shared/api"

// customerMetricsAPIs are the per-customer metrics operations: the
// Metrics-API subscriptions view, the customer's activities, merges and connected
// subscriptions.
var customerMetricsAPIs = map[string]API{
	"ListCustomerSubscriptionsFunction": api.ListCustomerSubscriptions,
	"ListCustomerActivitiesFunction":    api.ListCustomerActivities,
	"MergeCustomersFunction":            api.MergeCustomers,
	"ConnectSubscriptionsFunction":      api.ConnectSubscriptions,
	"DisconnectSubscriptionsFunction":   api.DisconnectSubscriptions,
}
