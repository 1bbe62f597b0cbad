// Command dashboard is the Lambda function serving the web dashboard's page and assets.
package main

import (
	"github.com/subsight/subsight/shared/dashboard"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.Public(dashboard.New) }
