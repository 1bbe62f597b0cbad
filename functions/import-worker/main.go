// Command import-worker applies one customer's imported records per message.
package main

import (
	"github.com/subsight/subsight/shared/lambdaapp"
	"github.com/subsight/subsight/shared/workers"
)

func main() { lambdaapp.Worker(workers.Import) }
