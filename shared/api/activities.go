package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/activityview"
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
func ListActivities(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		f, perPage, err := parseActivityQuery(r)
		if err != nil {
			return apigw.Response{}, err
		}
		pg, err := readCursor(d, r, fmt.Sprintf("activities?from=%s&to=%s&type=%s&desc=%t",
			orderBound(f.From), orderBound(f.To), f.Type, f.Descending))
		if err != nil {
			return apigw.Response{}, err
		}
		acc, err := d.Store.GetAccount(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := d.Store.ListActivities(ctx, r.AccountID, f, perPage, pg.start)
		if err != nil {
			return apigw.Response{}, err
		}
		cursor, err := pg.nextCursor(d, r, page.Next)
		if err != nil {
			return apigw.Response{}, err
		}
		loc := accountseries.Calendar(acc).Location
		entries := make([]jsonobj.Object, len(page.Items))
		for i, a := range page.Items {
			entries[i] = activityJSON(a, acc, loc)
		}
		body := jsonobj.Object{{Key: "entries", Value: entries}, {Key: "has_more", Value: page.HasMore}}
		if pg.first() {
			body = append(body, jsonobj.Field{Key: "per_page", Value: perPage})
		}
		return apigw.JSON(http.StatusOK, append(body, jsonobj.Field{Key: "cursor", Value: cursor}))
	}}
}

// activityJSON renders an activity of the account-wide list (activityview.Fields).
func activityJSON(a accountseries.Activity, acc model.Account, loc *time.Location) jsonobj.Object {
	return activityview.Fields(a, acc.Currency, loc)
}

// parseActivityQuery reads the filter and per_page (also spelled per-page).
func parseActivityQuery(r *apigw.Request) (store.ActivityFilter, int, error) {
	var f store.ActivityFilter
	if err := rejectPage(r); err != nil {
		return f, 0, err
	}
	if !r.HasQuery("per_page") && r.HasQuery("per-page") {
		r.Event.QueryStringParameters["per_page"] = r.Query("per-page") // the legacy spelling
	}
	limit, err := r.PerPage()
	if err != nil {
		return f, 0, err
	}
	if f.From, err = activityTime(r, "start-date", false); err != nil {
		return f, 0, err
	}
	if f.To, err = activityTime(r, "end-date", true); err != nil {
		return f, 0, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		return f, 0, apperr.BadRequest("end-date", "Parameter \"end-date\" must not be before \"start-date\"")
	}
	if t := r.Query("type"); t != "" {
		if !slices.Contains(activityTypes, t) {
			return f, 0, apperr.BadRequest("type", "Invalid value for parameter \"type\": %q (one of %s)", t, strings.Join(activityTypes, ", "))
		}
		f.Type = t
	}
	switch r.Query("order") {
	case "", "date":
	case "-date":
		f.Descending = true
	default:
		return f, 0, apperr.BadRequest("order", "Invalid value for parameter \"order\": %q (date or -date)", r.Query("order"))
	}
	return f, limit, nil
}

// orderBound renders a date bound of the activities filter for the cursor scope.
func orderBound(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return timefmt.Nanos(t)
}

// activityTime parses an optional ISO 8601 bound of the query string.
func activityTime(r *apigw.Request, param string, upper bool) (time.Time, error) {
	return activityBound(param, r.Query(param), upper)
}

// activityBound parses an optional ISO 8601 bound of an activity filter; a date alone
// as an upper bound covers that whole day.
func activityBound(param, raw string, upper bool) (time.Time, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return time.Time{}, nil
	}
	t, err := timefmt.Parse(raw)
	if err != nil {
		return time.Time{}, apperr.BadRequest(param, "Invalid value for parameter %q: %q is not an ISO 8601 date or time", param, raw)
	}
	if upper && len(raw) == len(time.DateOnly) {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return t, nil
}
