// Command create-subscription-event creates a subscription event.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.CreateSubscriptionEvent) }
