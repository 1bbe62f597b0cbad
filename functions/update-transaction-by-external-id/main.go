// Command update-transaction-by-external-id updates a transaction by data source and external id.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.UpdateTransaction) }
