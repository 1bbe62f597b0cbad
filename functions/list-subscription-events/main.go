// Command list-subscription-events lists the account's subscription events.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.ListSubscriptionEvents) }
