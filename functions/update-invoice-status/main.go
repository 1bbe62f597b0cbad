// Command update-invoice-status marks an invoice voided or written off.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.UpdateInvoiceStatus) }
