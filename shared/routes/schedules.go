package routes

import (
	"context"

	"github.com/subsight/subsight/shared/workers"
)

// Scheduled builds the handler of a function invoked by an EventBridge schedule; the
// event itself carries nothing the handler needs.
type Scheduled = func(*workers.Deps) func(context.Context) error

// Schedules are the functions with Schedule events.
var Schedules = map[string]Scheduled{
	"MetricsSweeperFunction": workers.MetricsWakeSweeper,
}
