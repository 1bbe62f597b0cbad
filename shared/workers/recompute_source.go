package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/store"
)

// sourceCustomersPerPage is a piece of a data source's recomputation: one listing page,
// then its recompute jobs sent ten to a request (Deps.SourcePageSize overrides it).
const sourceCustomersPerPage = 100

// sourcePosition is where a data source's recomputation resumes: the customers
// listing's next page.
type sourcePosition struct {
	Customers store.PageToken `json:"customers,omitempty"`
}

// recomputeDataSource asks for the recomputation of every customer of the job's data
// source (a change of its Stripe settings that moves metrics): a page of the source's
// customers at a time, one recompute job each in the bulk lane (sent in batches), then
// the next page; out of time it stops between pages with a moreSteps error naming the
// next one. A step repeated sends the same jobs again, which the queue drops within its
// deduplication window and which recompute to the same result after it. A data source
// purged meanwhile lists no customers, and the job ends.
func recomputeDataSource(ctx context.Context, d *Deps, job jobs.Message) error {
	var pos sourcePosition
	if job.Resume != "" {
		if err := json.Unmarshal([]byte(job.Resume), &pos); err != nil {
			return fmt.Errorf("workers: bad recomputation position: %w", err)
		}
	}
	reason := "settings:" + job.DataSourceUUID + "#" + job.Nonce
	filter := store.CustomerFilter{DataSourceUUID: job.DataSourceUUID}
	perPage := sourceCustomersPerPage
	if d.SourcePageSize > 0 {
		perPage = d.SourcePageSize
	}
	budget := &stepBudget{ctx: ctx}
	next, sent := pos.Customers, 0
	for {
		if !budget.more() {
			b, err := json.Marshal(sourcePosition{Customers: next})
			if err != nil {
				return err
			}
			return &moreSteps{resume: string(b)}
		}
		page, err := d.Store.ListCustomers(ctx, job.AccountID, filter, perPage, next)
		if err != nil {
			return err
		}
		batch := make([]jobs.Message, len(page.Items))
		for i, c := range page.Items {
			batch[i] = jobs.Recompute(job.AccountID, c.UUID, reason)
		}
		if len(batch) > 0 {
			if err := d.Recomputes.SendBatch(ctx, batch); err != nil {
				return err
			}
		}
		sent += len(batch)
		if !page.HasMore || page.Next == nil {
			slog.InfoContext(ctx, "data source's recomputations queued", "account_id", job.AccountID,
				"data_source_uuid", job.DataSourceUUID, "step", job.Step, "customers", sent)
			return nil
		}
		next = page.Next
	}
}
