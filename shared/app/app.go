// Package app builds the dependencies every function shares, once per process.
package app

import (
	"context"
	"time"

	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/config"
	"github.com/subsight/subsight/shared/cursor"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/store"
)

// Deps are the long-lived dependencies of handlers.
type Deps struct {
	Config  config.Config
	Clients awsclients.Clients
	Store   *store.Store
	Cursors *cursor.Signer
	Jobs    *jobs.Queue
	// Now is the clock; tests replace it.
	Now func() time.Time
}

// FromEnv loads configuration and AWS clients from the environment (Lambda's way).
func FromEnv(ctx context.Context) (*Deps, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	clients, err := awsclients.Load(ctx)
	if err != nil {
		return nil, err
	}
	return New(cfg, clients), nil
}

// New wires dependencies from a configuration and clients.
func New(cfg config.Config, clients awsclients.Clients) *Deps {
	now := func() time.Time { return time.Now().UTC() }
	return &Deps{
		Config:  cfg,
		Clients: clients,
		Store:   store.New(clients.DynamoDB, cfg.TableName, now),
		Cursors: cursor.NewSigner(cfg.CursorSecret),
		Jobs:    jobs.NewQueue(clients.SQS, cfg.JobsQueueURL),
		Now:     now,
	}
}
