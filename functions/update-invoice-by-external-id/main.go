// Command update-invoice-by-external-id updates an invoice by data source and external id.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.UpdateInvoice) }
