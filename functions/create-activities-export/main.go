// Command create-activities-export requests an activities export.
package main

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(api.CreateActivitiesExport) }
