// Command set-invoice-disabled disables or enables an invoice.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.SetInvoiceDisabled) }
