// Command set-transaction-disabled disables or enables a transaction.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.SetTransactionDisabled) }
