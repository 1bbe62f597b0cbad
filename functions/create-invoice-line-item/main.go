// Command create-invoice-line-item adds a line item to an invoice.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.CreateInvoiceLineItem) }
