package routes

import "github.com/subsight/subsight/shared/api/metricsapi"

// metricsOperations are the Metrics API (the account's series, read from their bucket
// items), the activities and their export (written by the jobs worker under exports/
// of the import bucket), a customer's subscriptions and activities, and the
// connection of subscriptions (which enqueues the recomputation).
var metricsOperations = []Operation{
	op("MetricsAll", get("/v1/metrics/all"), metricsapi.MetricsAll, tableRead),
	op("MetricsMrr", get("/v1/metrics/mrr"), metricsapi.MetricsMRR, tableRead),
	op("MetricsArr", get("/v1/metrics/arr"), metricsapi.MetricsARR, tableRead),
	op("MetricsArpa", get("/v1/metrics/arpa"), metricsapi.MetricsARPA, tableRead),
	op("MetricsAsp", get("/v1/metrics/asp"), metricsapi.MetricsASP, tableRead),
	op("MetricsCustomerCount", get("/v1/metrics/customer-count"), metricsapi.MetricsCustomerCount, tableRead),
	op("MetricsCustomerChurnRate", get("/v1/metrics/customer-churn-rate"), metricsapi.MetricsCustomerChurnRate, tableRead),
	op("MetricsMrrChurnRate", get("/v1/metrics/mrr-churn-rate"), metricsapi.MetricsMRRChurnRate, tableRead),
	op("MetricsLtv", get("/v1/metrics/ltv"), metricsapi.MetricsLTV, tableRead),
	op("MetricsUnknown", get("/v1/metrics/{metric}"), metricsapi.MetricsUnknown, none),
	op("ListActivities", get("/v1/activities"), metricsapi.ListActivities, tableRead),
	op("ListCustomerSubscriptions", get("/v1/customers/{customer_uuid}/subscriptions"), metricsapi.ListCustomerSubscriptions, tableRead),
	op("ListCustomerActivities", get("/v1/customers/{customer_uuid}/activities"), metricsapi.ListCustomerActivities, tableRead),
	op("ConnectSubscriptions", post("/v1/customers/{customer_uuid}/connect_subscriptions"), metricsapi.ConnectSubscriptions, access(table("GetItem", "BatchGetItem", "PutItem"), sendJobs)),
	op("DisconnectSubscriptions", post("/v1/customers/{customer_uuid}/disconnect_subscriptions"), metricsapi.DisconnectSubscriptions, access(table("GetItem", "BatchGetItem", "DeleteItem"), sendJobs)),
	op("CreateActivitiesExport", post("/v1/activities_export"), metricsapi.CreateActivitiesExport, access(table("PutItem"), sendJobs)),
	op("GetActivitiesExport", get("/v1/activities_export/{id}"), metricsapi.GetActivitiesExport, access(table("GetItem"), objects("exports/", "GetObject"))),
}
