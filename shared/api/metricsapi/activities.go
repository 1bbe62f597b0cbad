package metricsapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/activityview"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

var activityTypes = []string{engine.NewBusiness, engine.Expansion, engine.Contraction, engine.Churn, engine.Reactivation}

// ListActivities is GET /v1/activities: the account's MRR movements, filtered by
// start-date, end-date (inclusive; a date alone means the whole day, UTC) and type,
// ordered by date (order=date, the default) or newest first (order=-date), with
// signed cursors.
func ListActivities(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		f, err := parseActivityQuery(r)
		if err != nil {
			return apigw.Response{}, err
		}
		pg, err := api.ReadCursor(d, r, api.Listing{Scope: fmt.Sprintf("activities?from=%s&to=%s&type=%s&desc=%t",
			orderBound(f.From), orderBound(f.To), f.Type, f.Descending), Params: activityParams})
		if err != nil {
			return apigw.Response{}, err
		}
		if f.After, err = startAfter(ctx, d, r, pg); err != nil {
			return apigw.Response{}, err
		}
		acc, err := storage(d).GetAccount(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := storage(d).ListActivities(ctx, r.AccountID, f, pg.PerPage, pg.Start)
		if err != nil {
			return apigw.Response{}, err
		}
		loc := accountseries.Calendar(acc).Location
		entries := make([]jsonobj.Object, len(page.Items))
		for i, a := range page.Items {
			entries[i] = activityJSON(a, acc, loc)
		}
		return pg.Render(d, r, api.Page{Key: "entries", Entries: entries, Next: page.Next, HasMore: page.HasMore,
			Layout: api.HasMoreThenCursor, LegacyAfterHasMore: jsonobj.Object{{Key: "per_page", Value: pg.PerPage}}})
	}}
}

// activityJSON renders an activity of the account-wide list (activityview.Fields).
func activityJSON(a store.Activity, acc model.Account, loc *time.Location) jsonobj.Object {
	return activityview.Fields(a, acc.Currency, loc)
}

// activityParams are the parameters of GET /v1/activities besides cursor and per_page:
// its filters, the legacy spelling per-page and start-after.
var activityParams = []string{"start-date", "end-date", "type", "order", "per-page", "start-after"}

// parseActivityQuery reads the filter; per-page is the legacy spelling of per_page.
func parseActivityQuery(r *apigw.Request) (store.ActivityFilter, error) {
	var f store.ActivityFilter
	if !r.HasQuery("per_page") && r.HasQuery("per-page") {
		r.Event.QueryStringParameters["per_page"] = r.Query("per-page")
	}
	var err error
	if f.From, err = api.TimeParam(r, "start-date", false); err != nil {
		return f, err
	}
	if f.To, err = api.TimeParam(r, "end-date", true); err != nil {
		return f, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		return f, apperr.BadRequest("end-date", "Parameter \"end-date\" must not be before \"start-date\"")
	}
	if t := r.Query("type"); t != "" {
		if !slices.Contains(activityTypes, t) {
			return f, apperr.BadRequest("type", "Invalid value for parameter \"type\": %q (one of %s)", t, strings.Join(activityTypes, ", "))
		}
		f.Type = t
	}
	switch r.Query("order") {
	case "", "date":
	case "-date":
		f.Descending = true
	default:
		return f, apperr.BadRequest("order", "Invalid value for parameter \"order\": %q (date or -date)", r.Query("order"))
	}
	return f, nil
}

// startAfter reads start-after, the legacy way of paging activities: the uuid of the
// last activity a consumer has, so the listing starts after it. It names an activity
// of the account (else a 400, never the first page again) and cannot come with a
// cursor. It returns the activity's place in the log, "" without start-after.
func startAfter(ctx context.Context, d *api.Deps, r *apigw.Request, pg api.Paging) (string, error) {
	raw := strings.TrimSpace(r.Query("start-after"))
	if !r.HasQuery("start-after") {
		return "", nil
	}
	if !pg.Legacy() {
		return "", apperr.BadRequest("start-after", "Parameter \"start-after\" cannot be combined with \"cursor\"")
	}
	order, err := storage(d).ActivityOrder(ctx, r.AccountID, raw)
	if errors.Is(err, store.ErrNotFound) {
		return "", apperr.BadRequest("start-after", "Parameter \"start-after\" names no activity of this account: %q", raw)
	}
	return order, err
}

// orderBound renders a date bound of the activities filter for the cursor scope.
func orderBound(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return timefmt.Nanos(t)
}
