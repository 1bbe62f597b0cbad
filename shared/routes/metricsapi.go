package routes

import "github.com/subsight/subsight/shared/api"

// metricsAPIs are the Metrics API operations and the account activity log.
var metricsAPIs = map[string]API{
	"MetricsAllFunction":               api.MetricsAll,
	"MetricsMrrFunction":               api.MetricsMRR,
	"MetricsArrFunction":               api.MetricsARR,
	"MetricsArpaFunction":              api.MetricsARPA,
	"MetricsAspFunction":               api.MetricsASP,
	"MetricsCustomerCountFunction":     api.MetricsCustomerCount,
	"MetricsCustomerChurnRateFunction": api.MetricsCustomerChurnRate,
	"MetricsMrrChurnRateFunction":      api.MetricsMRRChurnRate,
	"MetricsLtvFunction":               api.MetricsLTV,
	"MetricsUnknownFunction":           api.MetricsUnknown,
	"ListActivitiesFunction":           api.ListActivities,
}
