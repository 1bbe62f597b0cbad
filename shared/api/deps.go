package api

import (
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/cursor"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/store"
)

// Deps are what the HTTP operations use, built once per process by the wiring
// (shared/app); every operation is a func(*Deps) apigw.Endpoint.
type Deps struct {
	Store   *store.Store
	Cursors *cursor.Signer
	Jobs    *jobs.Queue
	Series  *accountseries.Series
	Imports *imports.Pipeline
	// AppURL is the base URL of the web app (a customer's chartmogul_url).
	AppURL string
	// Now is the clock; tests replace it.
	Now func() time.Time
}
