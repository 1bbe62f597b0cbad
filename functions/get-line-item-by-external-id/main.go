// Command get-line-item-by-external-id reads a line item by data source and external id.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.GetLineItem) }
