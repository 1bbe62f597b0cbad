// Command jobs-worker runs asynchronous jobs: purges and metrics recomputation.
package main

import (
	"github.com/subsight/subsight/shared/lambdaapp"
	"github.com/subsight/subsight/shared/workers"
)

func main() { lambdaapp.Worker(workers.Jobs) }
