// Command update-import-subscription cancels a subscription or replaces its cancellation dates.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.UpdateSubscription) }
