package api

import (
	"sync"
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
	Imports *imports.Pipeline
	// AppURL is the base URL of the web app (a customer's chartmogul_url).
	AppURL string
	// Now is the clock; tests replace it.
	Now func() time.Time

	seriesOnce sync.Once
	series     *accountseries.Series
}

// Series are the account series on the store, built on first use (by the metrics and
// activity operations only, so that the others do not link them).
func (d *Deps) Series() *accountseries.Series {
	d.seriesOnce.Do(func() { d.series = accountseries.New(d.Store.Series()) })
	return d.series
}
