// Command list-data-sources is the Lambda function of one API operation.
package main

import (
	"github.com/subsight/subsight/shared/api/account"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(account.ListDataSources) }
