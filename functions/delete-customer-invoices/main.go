// Command delete-customer-invoices deletes a customer's invoices in a data source.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.DeleteCustomerInvoices) }
