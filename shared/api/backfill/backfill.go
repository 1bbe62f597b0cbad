// Package backfill holds the Stripe backfill's operations: POST and GET
// /v1/data_sources/{data_source_uuid}/stripe/backfill. The backfill itself runs in the
// jobs worker (package stripebackfill); these start it and show its progress.
package backfill

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// busy is the 409 of a backfill asked for while others run: the request is right, and
// right again later (a uniqueness clash, ChartMogul's 422, would not be).
func busy(msg string) *apperr.Error {
	return &apperr.Error{Status: http.StatusConflict, Param: "data_source_uuid", Message: msg}
}

func errNotConnected() *apperr.Error {
	return apperr.NotFound("data_source_uuid", "The data source is not connected to Stripe")
}

// connection reads the Stripe connection of the account's data source in the path: a
// data source of another account, or one not connected, is the same 404.
func connection(ctx context.Context, d *api.Deps, r *apigw.Request) (model.StripeConnection, error) {
	uuid := r.PathParam("data_source_uuid")
	if _, err := api.LiveDataSource(ctx, d, r.AccountID, uuid); err != nil {
		return model.StripeConnection{}, err
	}
	conn, err := storage(d).GetStripeConnection(ctx, uuid)
	if errors.Is(err, store.ErrNotFound) || (err == nil && conn.AccountID != r.AccountID) {
		return model.StripeConnection{}, errNotConnected()
	}
	return conn, err
}

// StartStripeBackfill is POST /v1/data_sources/{data_source_uuid}/stripe/backfill: it
// queues a backfill of the data source's Stripe history and answers 202 with its
// progress; 422 when the connection has no API key to read with, 409 while the
// data source's last backfill is queued or running.
func StartStripeBackfill(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		conn, err := connection(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if len(conn.SealedAPIKey) == 0 {
			return apigw.Response{}, apperr.Unprocessable("api_key",
				"The Stripe connection has no API key: connect a restricted key with read access to backfill.")
		}
		if err := underAccountLimit(ctx, d, r.AccountID, conn.DataSourceUUID); err != nil {
			return apigw.Response{}, err
		}
		now := d.Now().UTC()
		b := model.StripeBackfill{AccountID: r.AccountID, DataSourceUUID: conn.DataSourceUUID, ID: model.NewStripeBackfillID(),
			Status: model.BackfillQueued, RequestedAt: now, UpdatedAt: now}
		err = storage(d).StartStripeBackfill(ctx, b)
		if errors.Is(err, store.ErrConflict) {
			return apigw.Response{}, busy("A backfill of this data source is already queued or running.")
		}
		if err != nil {
			return apigw.Response{}, err
		}
		if err := d.StripeSteps.Send(ctx, jobs.Backfill(r.AccountID, b.DataSourceUUID, b.ID)); err != nil {
			// No job will run it: it must not hold the data source's next backfill off.
			b.Status, b.LastError, b.FinishedAt = model.BackfillFailed, "The backfill could not be queued; start it again.", now
			if err := storage(d).SaveStripeBackfill(ctx, b, 0); err != nil {
				slog.ErrorContext(ctx, "could not mark an unqueued backfill failed", "error", err.Error())
			}
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusAccepted, progressJSON(b))
	}}
}

// MaxBackfillsPerAccount is how many backfills of one account may be queued or running
// at once: each holds one of the backfill lane's invocations while its steps run
// (docs/stripe.md, "What one account's backfill costs the others").
const MaxBackfillsPerAccount = 2

// underAccountLimit refuses a backfill while MaxBackfillsPerAccount of the account's other
// data sources are queued or running. It is read before the write, not a condition of
// it: two requests for two data sources at the same instant may both pass, one over.
func underAccountLimit(ctx context.Context, d *api.Deps, accountID, dsUUID string) error {
	sources, err := storage(d).ListDataSources(ctx, accountID)
	if err != nil {
		return err
	}
	running := 0
	for _, ds := range sources {
		if ds.UUID == dsUUID {
			continue
		}
		b, err := storage(d).GetStripeBackfill(ctx, accountID, ds.UUID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if !b.Finished() {
			running++
		}
	}
	if running >= MaxBackfillsPerAccount {
		return busy(fmt.Sprintf("The account has %d Stripe backfills queued or running; start this one when one of them is done.", running))
	}
	return nil
}

// GetStripeBackfill is GET /v1/data_sources/{data_source_uuid}/stripe/backfill: the
// progress of the data source's latest backfill (404 before the first).
func GetStripeBackfill(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		conn, err := connection(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		b, err := storage(d).GetStripeBackfill(ctx, r.AccountID, conn.DataSourceUUID)
		if errors.Is(err, store.ErrNotFound) {
			return apigw.Response{}, apperr.NotFound("data_source_uuid", "The data source has no Stripe backfill yet")
		}
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, progressJSON(b))
	}}
}

// progressJSON is the progress object of a backfill.
func progressJSON(b model.StripeBackfill) jsonobj.Object {
	return jsonobj.Object{
		{Key: "id", Value: b.ID},
		{Key: "data_source_uuid", Value: b.DataSourceUUID},
		{Key: "status", Value: b.Status},
		{Key: "counts", Value: b.Counts},
		{Key: "requests", Value: b.Requests},
		{Key: "requested_at", Value: timefmt.Millis(b.RequestedAt)},
		{Key: "started_at", Value: millisOrNull(b.StartedAt)},
		{Key: "finished_at", Value: millisOrNull(b.FinishedAt)},
		{Key: "updated_at", Value: timefmt.Millis(b.UpdatedAt)},
		{Key: "last_error", Value: textOrNull(b.LastError)},
	}
}

func millisOrNull(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	return timefmt.MillisPtr(&t)
}

func textOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
