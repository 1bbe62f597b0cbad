// Command metrics-arr is the Lambda function of one API operation.
package main

import (
	"github.com/subsight/subsight/shared/api/metricsapi"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(metricsapi.MetricsARR) }
