// Command list-import-subscriptions lists a customer's subscriptions (Import API).
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.ListImportSubscriptions) }
