// Command create-contact is the Lambda function of one API operation.
package main

import (
	"github.com/subsight/subsight/shared/api/customers"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(customers.CreateContact) }
