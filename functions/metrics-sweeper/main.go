// Command metrics-sweeper runs on an EventBridge schedule: it enqueues the metrics
// recomputations that fall due by the passage of time (see docs/metrics-engine.md).
package main

import (
	"github.com/subsight/subsight/shared/lambdaapp"
	"github.com/subsight/subsight/shared/workers"
)

func main() { lambdaapp.Scheduled(workers.MetricsWakeSweeper) }
