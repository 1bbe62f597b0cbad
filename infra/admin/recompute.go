package main

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/store"
)

// jobSender enqueues jobs (jobs.Queue; tests record).
type jobSender interface {
	Send(ctx context.Context, m jobs.Message) error
}

// errNoJobsQueue is returned before anything is written by the commands whose change
// only takes effect through recomputations.
var errNoJobsQueue = errors.New("no jobs queue to enqueue the recomputations: pass -jobs-queue URL (the stack's JobsQueueUrl output), set JOBS_QUEUE_URL, or use -local")

func requireJobs(e env) error {
	if e.jobs == nil {
		return errNoJobsQueue
	}
	return nil
}

// customersPerPage is the page size of the customer listing walked by recomputeAccount
// (a variable so that tests can make it page).
var customersPerPage = 200

// recomputeAccount enqueues a recompute_customer job for every customer of the
// account and reports how many. Settings and exchange rates apply to every customer,
// and the engine reads them afresh, so the whole account is recomputed; a customer
// whose result does not change costs one recomputation that writes nothing. The nonce
// is new for each run, not derived from the change: a setting switched and switched
// back within SQS's five-minute deduplication window must still be recomputed.
func recomputeAccount(ctx context.Context, e env, accountID string) (int, error) {
	if err := requireJobs(e); err != nil {
		return 0, err
	}
	nonce := "admin:" + strconv.FormatInt(time.Now().UnixNano(), 36)
	n := 0
	var start store.PageToken
	for {
		page, err := e.store.ListCustomers(ctx, accountID, store.CustomerFilter{}, customersPerPage, start)
		if err != nil {
			return n, err
		}
		for _, c := range page.Items {
			if err := e.jobs.Send(ctx, jobs.Recompute(accountID, c.UUID, nonce)); err != nil {
				return n, err
			}
			n++
		}
		if !page.HasMore || page.Next == nil {
			return n, nil
		}
		start = page.Next
	}
}
