// Command list-invoices lists the account's invoices.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.ListInvoices) }
