// Command create-activities-export requests an activities export.
package main

import (
	"github.com/subsight/subsight/shared/api/metricsapi"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(metricsapi.CreateActivitiesExport) }
