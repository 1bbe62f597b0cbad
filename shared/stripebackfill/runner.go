package stripebackfill

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripesource"
)

// Applier applies one Stripe customer's records to the connection's data source
// (stripesync implements it, through the import pipeline's per-customer step). It is
// called for several customers at once, never twice at once for one customer.
type Applier interface {
	ApplyCustomer(ctx context.Context, conn model.StripeConnection, stripeCustomerID string, recs stripesource.Records) error
}

// Storage is what a backfill reads and keeps: the data source's Stripe connection and
// its backfill's progress.
type Storage interface {
	GetStripeConnection(ctx context.Context, dsUUID string) (model.StripeConnection, error)
	store.StripeBackfills
}

// Defaults of Runner.
const (
	// DefaultStepTime: a step starts no page of customers after it, so that a step (a page
	// takes a few seconds at the rate) ends well within the Stripe events worker's 60 s.
	DefaultStepTime = 40 * time.Second
	// DefaultConcurrency is how many customers of a page are read and applied at once.
	DefaultConcurrency = 4
)

// Runner runs backfill jobs (jobs.BackfillStripe) a step at a time.
type Runner struct {
	Store   Storage
	Sealer  secrets.Sealer
	Applier Applier
	// Options reach Stripe (API base, rate, page sizes).
	Options Options
	// StepTime bounds a step (0: DefaultStepTime); Concurrency is how many customers are
	// read at once (0: DefaultConcurrency).
	StepTime    time.Duration
	Concurrency int
	// Now dates the progress; Clock measures a step's time (nil: time.Now for both).
	Now, Clock func() time.Time
}

func (r *Runner) now() time.Time {
	if r.Now == nil {
		return time.Now().UTC()
	}
	return r.Now().UTC()
}

func (r *Runner) clock() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock()
}

// Step runs one step of the job's backfill: it reads pages of customers from where the
// last step stopped, applies each customer's records, saves the progress after each
// page, and stops after StepTime (or when the invocation has no time left for a page:
// sqsworker.MayStart) with more true: the job goes on in another step. A backfill
// finished, replaced by a newer one, or moved on by a repeated step is left alone.
// Stripe's refusals that will not change by retrying (the key refused, a permission
// missing) fail the backfill; other failures are returned for the message's redelivery,
// with the progress noting them.
func (r *Runner) Step(ctx context.Context, job jobs.Message) (more bool, err error) {
	b, err := r.Store.GetStripeBackfill(ctx, job.AccountID, job.DataSourceUUID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if b.ID != job.Nonce || b.Finished() {
		return false, nil
	}
	conn, err := r.Store.GetStripeConnection(ctx, job.DataSourceUUID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && conn.AccountID != job.AccountID) {
		return false, r.fail(ctx, b, "The data source is no longer connected to Stripe.")
	}
	if err != nil {
		return false, err
	}
	if r.Applier == nil {
		return false, errors.New("stripebackfill: no applier is wired")
	}
	reader, err := Open(ctx, r.Sealer, conn, r.Options)
	if err != nil {
		return false, err
	}
	if reader == nil {
		return false, r.fail(ctx, b, "The Stripe connection has no API key; add a restricted key with read access and start the backfill again.")
	}
	more, err = r.step(ctx, &b, conn, reader)
	if err == nil {
		return more, nil
	}
	if msg, final := refusal(err); final {
		return false, r.fail(ctx, b, msg)
	}
	// Retried from the saved position on redelivery; the client sees why meanwhile.
	b.LastError, b.UpdatedAt = "Reading Stripe failed; the backfill retries the step.", r.now()
	if saveErr := r.Store.SaveStripeBackfill(ctx, b, b.Pages); saveErr != nil && !errors.Is(saveErr, store.ErrConflict) {
		slog.WarnContext(ctx, "could not note the backfill's failure", "error", saveErr.Error())
	}
	return false, err
}

func (r *Runner) step(ctx context.Context, b *model.StripeBackfill, conn model.StripeConnection, reader *Reader) (bool, error) {
	start := r.clock()
	if b.Status == model.BackfillQueued {
		b.Status, b.StartedAt = model.BackfillRunning, r.now()
		b.UpdatedAt = b.StartedAt
		if err := r.Store.SaveStripeBackfill(ctx, *b, b.Pages); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return false, nil
			}
			return false, err
		}
	}
	prices, err := reader.Prices(ctx)
	if err != nil {
		return false, err
	}
	b.Counts.Prices = len(prices)
	counted := int64(0)
	for {
		page, more, err := reader.Customers(ctx, b.Cursor)
		if err != nil {
			return false, err
		}
		counts, err := r.apply(ctx, conn, reader, page, prices)
		if err != nil {
			return false, err
		}
		pages := b.Pages
		b.Pages++
		if len(page) > 0 {
			b.Cursor = page[len(page)-1].ID
		}
		b.Counts.Add(counts)
		b.Requests += reader.Requests() - counted
		counted = reader.Requests()
		b.LastError, b.UpdatedAt = "", r.now()
		if !more {
			b.Status, b.FinishedAt = model.BackfillDone, b.UpdatedAt
		}
		err = r.Store.SaveStripeBackfill(ctx, *b, pages)
		if errors.Is(err, store.ErrConflict) {
			return false, nil // a repeated step, or a newer backfill: the other one goes on
		}
		if err != nil || !more {
			return false, err
		}
		if r.clock().Sub(start) >= cmp.Or(r.StepTime, DefaultStepTime) || !sqsworker.MayStart(ctx) {
			return true, nil
		}
	}
}

// apply reads and applies the customers of a page, a few at once.
func (r *Runner) apply(ctx context.Context, conn model.StripeConnection, reader *Reader, page []*stripe.Customer, prices map[string]*stripe.Price) (model.StripeBackfillCounts, error) {
	var (
		mu     sync.Mutex
		total  model.StripeBackfillCounts
		failed error
	)
	parallel.For(len(page), cmp.Or(r.Concurrency, DefaultConcurrency), func(i int) {
		c := page[i]
		recs, n, err := reader.Customer(ctx, c, prices)
		if err == nil {
			err = r.Applier.ApplyCustomer(ctx, conn, c.ID, recs)
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed = cmp.Or(failed, err)
			return
		}
		total.Add(n)
	})
	return total, failed
}

// Fail marks the job's backfill failed: its message is leaving for the dead-letter
// queue after failing every receive.
func (r *Runner) Fail(ctx context.Context, job jobs.Message, cause error) {
	b, err := r.Store.GetStripeBackfill(ctx, job.AccountID, job.DataSourceUUID)
	if err != nil || b.ID != job.Nonce || b.Finished() {
		return
	}
	slog.ErrorContext(ctx, "stripe backfill failed", "account_id", job.AccountID, "data_source_uuid", job.DataSourceUUID,
		"error", cause.Error())
	if err := r.fail(ctx, b, "The backfill stopped after failing repeatedly; start it again to resume."); err != nil {
		slog.ErrorContext(ctx, "could not mark the backfill failed", "error", err.Error())
	}
}

func (r *Runner) fail(ctx context.Context, b model.StripeBackfill, msg string) error {
	b.Status, b.LastError = model.BackfillFailed, msg
	b.UpdatedAt = r.now()
	b.FinishedAt = b.UpdatedAt
	err := r.Store.SaveStripeBackfill(ctx, b, b.Pages)
	if errors.Is(err, store.ErrConflict) {
		return nil
	}
	return err
}

// refusal: Stripe's answer to a request that no retry will change (the key refused, a
// permission missing, a request Stripe does not take), said for the client.
func refusal(err error) (msg string, final bool) {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return "", false
	}
	switch se.HTTPStatusCode {
	case 401:
		return "Stripe refused the API key (401); connect a valid restricted key and start the backfill again.", true
	case 403:
		return "The API key may not read everything the backfill needs (403); give the restricted key read access to " +
			"prices, customers, subscriptions, invoices, invoice payments, charges and refunds.", true
	case 400, 404:
		return fmt.Sprintf("Stripe refused a request of the backfill (%d %s).", se.HTTPStatusCode, se.Code), true
	}
	return "", false
}
