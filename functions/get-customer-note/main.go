// Command get-customer-note is the Lambda function of one API operation.
package main

import (
	"github.com/subsight/subsight/shared/api/crm"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(crm.GetCustomerNote) }
