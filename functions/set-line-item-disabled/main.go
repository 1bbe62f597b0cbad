// Command set-line-item-disabled disables or enables a line item.
package main

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(billing.SetLineItemDisabled) }
