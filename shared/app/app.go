// Package app builds the dependencies every function shares, once per process: the
// clients, the store (its DynamoDB implementation), the cursor signer, the queues (on
// SQS) and the import pipeline (parts on S3). It is where the concrete adapters are
// chosen; the packages it wires know only their contracts. Only the
// wiring (lambdaapp, the local stack, the test environment) imports it; handlers get
// the part they use (API, Workers), which builds the heavier components (the account
// series, the recomputer) on first use, so that a binary links only what its handler
// uses.
package app

import (
	"context"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/blobs"
	"github.com/subsight/subsight/shared/config"
	"github.com/subsight/subsight/shared/cursor"
	"github.com/subsight/subsight/shared/fifo"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/secrets/kmssealer"
	"github.com/subsight/subsight/shared/store/dynamo"
	"github.com/subsight/subsight/shared/workers"
)

// Deps are the long-lived dependencies of the handlers.
type Deps struct {
	Config  config.Config
	Clients awsclients.Clients
	Store   *dynamo.Store
	Cursors *cursor.Signer
	// Jobs is the jobs queue (changes made through the API, account-level jobs),
	// Recomputes the bulk lane of recomputations, Folds the series folds.
	Jobs       *jobs.Queue
	Recomputes *jobs.Queue
	Folds      *jobs.Queue
	// StripeSteps are the Stripe backfills' steps, in the Stripe backfill queue.
	StripeSteps *jobs.Queue
	Imports     *imports.Pipeline
	// Files is the bucket (the pipeline's parts are under imports/, exports under exports/).
	Files *blobs.Store
	// Secrets seal and open the data sources' secrets under the stack's KMS key.
	Secrets *kmssealer.Sealer
	// Now is the clock of every component.
	Now func() time.Time
}

// FromEnv loads configuration and AWS clients from the environment (Lambda's way).
func FromEnv(ctx context.Context) (*Deps, error) { return fromEnv(ctx, awsclients.Load) }

// WorkerFromEnv is FromEnv for a queue worker or scheduled function: its DynamoDB client
// waits longer for capacity (awsclients.LoadWorker).
func WorkerFromEnv(ctx context.Context) (*Deps, error) { return fromEnv(ctx, awsclients.LoadWorker) }

func fromEnv(ctx context.Context, load func(context.Context) (awsclients.Clients, error)) (*Deps, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	clients, err := load(ctx)
	if err != nil {
		return nil, err
	}
	return New(cfg, clients), nil
}

// New wires dependencies from a configuration and clients, on the wall clock (UTC).
func New(cfg config.Config, clients awsclients.Clients) *Deps {
	return Wire(cfg, clients, func() time.Time { return time.Now().UTC() })
}

// Wire wires dependencies from a configuration and clients on the clock now (tests fix
// it, or meter a client first).
func Wire(cfg config.Config, clients awsclients.Clients, now func() time.Time) *Deps {
	st := dynamo.New(clients.DynamoDB, cfg.TableName, now)
	recomputes := jobs.NewBulkQueue(fifo.New(clients.SQS, cfg.RecomputeQueueURL, "RECOMPUTE_QUEUE_URL"))
	files := blobs.New(clients.Config, cfg.ImportBucket)
	pipeline := imports.New(st, files, fifo.New(clients.SQS, cfg.ImportQueueURL, "IMPORT_QUEUE_URL"), recomputes, now)
	if cfg.ImportFeedQueueURL != "" {
		pipeline.Lanes = &imports.Lanes{Feeds: fifo.New(clients.SQS, cfg.ImportFeedQueueURL, "IMPORT_FEED_QUEUE_URL"),
			Window: cfg.ImportWindow}
	}
	return &Deps{
		Config:      cfg,
		Clients:     clients,
		Store:       st,
		Cursors:     cursor.NewSigner(cfg.CursorSecret),
		Jobs:        jobs.NewQueue(fifo.New(clients.SQS, cfg.JobsQueueURL, "JOBS_QUEUE_URL")),
		Recomputes:  recomputes,
		Folds:       jobs.NewQueue(fifo.New(clients.SQS, cfg.SeriesFoldQueueURL, "SERIES_FOLD_QUEUE_URL")),
		StripeSteps: jobs.NewQueue(fifo.New(clients.SQS, cfg.StripeBackfillQueueURL, "STRIPE_BACKFILL_QUEUE_URL")),
		Imports:     pipeline,
		Files:       files,
		Secrets:     kmssealer.New(clients.Config, cfg.SecretsKeyID),
		Now:         now,
	}
}

// API is what the HTTP operations use.
func (d *Deps) API() *api.Deps {
	return &api.Deps{Store: d.Store, Cursors: d.Cursors, Jobs: d.Jobs, Imports: d.Imports, Files: d.Files,
		AppURL: d.Config.AppURL, Secrets: d.Secrets, StripeSteps: d.StripeSteps, Now: d.Now}
}

// Gate is the limit of every account's requests per second in front of the HTTP
// operations (apigw.Wrap): the Lambdas, the local stack and the handler tests all use it.
func (d *Deps) Gate() *apigw.Gate { return apigw.NewGate(d.Store, d.Now) }

// Workers is what the queue workers and scheduled functions use.
func (d *Deps) Workers() *workers.Deps {
	c := d.Config
	w := &workers.Deps{Store: d.Store, Jobs: d.Jobs, Recomputes: d.Recomputes, Folds: d.Folds, Imports: d.Imports,
		Files: d.Files, Secrets: d.Secrets, Now: d.Now, Throttled: awsclients.Throttled,
		StripeSteps: d.StripeSteps, StripeAPIBase: c.StripeAPIBase, StripeBackfillRate: c.StripeBackfillRate,
		Redeliver: fifo.NewVisibility(d.Clients.SQS, c.ImportQueueURL, c.JobsQueueURL, c.RecomputeQueueURL, c.SeriesFoldQueueURL,
			c.StripeEventQueueURL, c.StripeBackfillQueueURL)}
	return w
}
