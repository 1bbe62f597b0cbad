// Command get-activities-export reads an activities export with its download URL.
package main

import (
	"github.com/subsight/subsight/shared/api/metricsapi"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(metricsapi.GetActivitiesExport) }
