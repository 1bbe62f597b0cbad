// Command update-transaction updates a transaction.
package main

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(api.UpdateTransaction) }
