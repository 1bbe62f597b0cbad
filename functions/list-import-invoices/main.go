// Command list-import-invoices lists a customer's invoices (Import API).
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.ListImportInvoices) }
