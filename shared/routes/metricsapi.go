package routes

import (
	"github.com/subsight/subsight/shared/api/metricsapi"
)

// metricsAPIs are the Metrics API operations and the account activity log.
var metricsAPIs = map[string]API{
	"MetricsAllFunction":               metricsapi.MetricsAll,
	"MetricsMrrFunction":               metricsapi.MetricsMRR,
	"MetricsArrFunction":               metricsapi.MetricsARR,
	"MetricsArpaFunction":              metricsapi.MetricsARPA,
	"MetricsAspFunction":               metricsapi.MetricsASP,
	"MetricsCustomerCountFunction":     metricsapi.MetricsCustomerCount,
	"MetricsCustomerChurnRateFunction": metricsapi.MetricsCustomerChurnRate,
	"MetricsMrrChurnRateFunction":      metricsapi.MetricsMRRChurnRate,
	"MetricsLtvFunction":               metricsapi.MetricsLTV,
	"MetricsUnknownFunction":           metricsapi.MetricsUnknown,
	"ListActivitiesFunction":           metricsapi.ListActivities,
}
