// Command put-plan updates a plan (PUT, as chartmogul-node's Plan.update sends it).
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.UpdatePlan) }
