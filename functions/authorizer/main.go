// Command authorizer is the HTTP API Lambda authorizer.
package main

import (
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.Authorizer(auth.Authorizer) }
