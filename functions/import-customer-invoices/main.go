// Command import-customer-invoices imports one customer's invoices synchronously.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.ImportCustomerInvoices) }
