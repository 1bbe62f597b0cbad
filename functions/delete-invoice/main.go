// Command delete-invoice deletes an invoice by uuid.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.DeleteInvoice) }
