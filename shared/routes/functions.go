package routes

import (
	"strings"

	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/dashboard"
	"github.com/subsight/subsight/shared/workers"
)

// authorizer guards every operation. It never denies (docs/architecture.md): it reads
// the key's lookup item by the key's hash. No reserved concurrency: a
// reservation is a ceiling too, and a throttled authorizer fails the request the stage
// let through with a 5xx; it runs in the pool that the stage's throttle bounds
// (docs/architecture.md, "Guard rails").
var authorizer = Function{Name: "Authorizer", Authorizer: auth.Authorizer,
	Access: table("GetItem")}

// dashboardPages are the web dashboard's page and content-hashed assets, embedded in the
// binary. No authorizer: the page asks the person for an API key and calls the API with
// it; the function reads nothing and needs no permission.
var dashboardPages = Function{Name: "Dashboard", Family: "Dashboard", Public: dashboard.New, Routes: []Route{get("/"), get("/assets/{file}")},
	Access: none, MemorySize: 128, Timeout: 5}

// backgroundFunctions are the queue workers and the scheduled sweeper. The queues'
// visibility timeout is six times the workers' timeout. Each worker has its reserved
// concurrency, at least the sum of its mappings' MaximumConcurrency (else Lambda
// throttles the mappings' own invocations), so that API traffic cannot starve the
// workers nor the workers the API; the sweeper runs a few seconds every 5 minutes
// in the unreserved pool.
var backgroundFunctions = []Function{
	// The import worker applies each customer's records of a json_import, read from the
	// bucket, and enqueues the customer's recomputation in the recompute queue.
	{Name: "ImportWorker", Worker: workers.Import, MemorySize: 1769, Timeout: 60, ReservedConcurrency: "ImportWorkerReservedConcurrency",
		Queues: []QueueSource{{Queue: "ImportQueue", BatchSize: 10, MaxConcurrency: 80}},
		Access: access(table("BatchGetItem", "PutItem", "UpdateItem", "BatchWriteItem"), objects("imports/", "GetObject"), sendRecomputes,
			because("plans, subscription events and contacts of a customer's records and the marking of a failed customer, which the parity import does not carry",
				table("GetItem", "Query", "DeleteItem", "ConditionCheckItem")))},
	// The import feeder feeds each account's customer messages to the import queue, at
	// most a window of them not yet applied (docs/architecture.md, "Lanes"), so that one
	// account's large import does not hold another account's back.
	{Name: "ImportFeeder", Worker: workers.ImportFeeder, MemorySize: 256, Timeout: 60, ReservedConcurrency: "ImportFeederReservedConcurrency",
		Queues: []QueueSource{{Queue: "ImportFeedQueue", BatchSize: 10, MaxConcurrency: 10}},
		Access: access(table("GetItem", "Query", "UpdateItem", "DeleteItem"), objects("imports/", "GetObject"), sendImports,
			because("the next feed of an account whose lane holds more than its window", sendFeeds))},
	// The jobs worker recomputes customers, folds the account series' bulk shards, purges,
	// merges and writes activities exports under exports/ (in parts, read back for the
	// file, when one takes several steps; the bucket's lifecycle keeps them 7 days).
	// One function, three lanes, each with its own concurrency
	// (docs/architecture.md, "Lanes"): the jobs queue (the recomputations of changes made
	// through the API, account-level jobs), the recompute queue (the recomputations that
	// imports, purges and the sweeper ask for: an import of a million customers waits
	// there behind nobody's API change) and the series fold queue.
	{Name: "JobsWorker", Worker: workers.Jobs, MemorySize: 1024, Timeout: 60, ReservedConcurrency: "JobsWorkerReservedConcurrency",
		Queues: []QueueSource{
			{Queue: "JobsQueue", BatchSize: 10, MaxConcurrency: 10},
			{Event: "Recomputes", Queue: "RecomputeQueue", BatchSize: 10, MaxConcurrency: 60},
			{Event: "Folds", Queue: "SeriesFoldQueue", BatchSize: 10, MaxConcurrency: 5},
		},
		Access: access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "BatchWriteItem"), indexes("Query"),
			objects("exports/", "PutObject"),
			because("an export written in several steps reads its parts back; the parity export takes one",
				objects("exports/", "GetObject")),
			because("purges, merges and folds of the account series' shards, which the parity jobs do not include",
				access(table("DeleteItem", "ConditionCheckItem"), sendJobs, sendRecomputes, sendFolds)))},
	// The sweeper enqueues the recomputations that fall due by the passage of time (a
	// service period ends, a scheduled cancellation or auto-churn takes effect): one GSI2
	// query per hour bucket, then one recompute_customer job per due customer, in the
	// recompute queue. SQS FIFO has no per-message delay, hence this.
	{Name: "MetricsSweeper", Scheduled: workers.MetricsWakeSweeper, Timeout: 60,
		Schedule: &Schedule{Rate: "rate(5 minutes)", Description: "Enqueue the metrics recomputations that are due."},
		Access:   access(index("GSI2", "Query"), sendRecomputes)},
}

// receive is what Lambda's event source needs of the queue a worker reads (SAM's
// AWSLambdaSQSQueueExecutionRole, on that queue only), and ChangeMessageVisibility, with
// which the worker brings a throttled message back within seconds (sqsworker.Backoff).
func receive(queue string) Access {
	return Access{{Name: "Receive" + strings.TrimSuffix(queue, "Queue"), Resources: []string{queue},
		Actions: []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ChangeMessageVisibility"},
		Reason:  "Lambda's event source reads the queue with the role; the function changes a visibility only when throttled"}}
}

// Needs is everything the function's role must grant: its Access and, for a worker, the
// reading of its queues.
func (f Function) Needs() Access {
	needs := f.Access
	for _, q := range f.Queues {
		needs = access(needs, receive(q.Queue))
	}
	return needs
}
