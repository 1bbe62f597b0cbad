// Command get-task is the Lambda function of one API operation.
package main

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(api.GetTask) }
