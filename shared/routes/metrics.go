package routes

import (
	"github.com/subsight/subsight/shared/api/customers"
	"github.com/subsight/subsight/shared/api/metricsapi"
)

// customerMetricsAPIs are the per-customer metrics operations: the
// Metrics-API subscriptions view, the customer's activities, merges and connected
// subscriptions.
var customerMetricsAPIs = map[string]API{
	"ListCustomerSubscriptionsFunction": metricsapi.ListCustomerSubscriptions,
	"ListCustomerActivitiesFunction":    metricsapi.ListCustomerActivities,
	"MergeCustomersFunction":            customers.MergeCustomers,
	"ConnectSubscriptionsFunction":      metricsapi.ConnectSubscriptions,
	"DisconnectSubscriptionsFunction":   metricsapi.DisconnectSubscriptions,
}
