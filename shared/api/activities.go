package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/timefmt"
)

var activityTypes = []string{engine.NewBusiness, engine.Expansion, engine.Contraction, engine.Churn, engine.Reactivation}

// ListActivities is GET /v1/activities: the account's MRR movements, filtered by
// start-date, end-date (inclusive; a date alone means the whole day, UTC) and type,
// ordered by date (order=date, the default) or newest first (order=-date), with
// signed cursors.
func ListActivities(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		q, err := parseActivityQuery(r)
		if err != nil {
			return apigw.Response{}, err
		}
		scope := fmt.Sprintf("activities?from=%s&to=%s&type=%s&desc=%t", q.From, q.To, q.Type, q.Descending)
		start, err := cursorStart(d, r, scope)
		if err != nil {
			return apigw.Response{}, err
		}
		q.Start = start
		acc, err := d.Store.GetAccount(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := accountseries.ListActivities(ctx, d, r.AccountID, q)
		if err != nil {
			return apigw.Response{}, err
		}
		cursor, err := d.Cursors.Encode(r.AccountID, scope, page.LastKey)
		if err != nil {
			return apigw.Response{}, err
		}
		loc := accountseries.Calendar(acc).Location
		entries := make([]jsonobj.Object, len(page.Activities))
		for i, a := range page.Activities {
			entries[i] = activityJSON(a, acc, loc)
		}
		body := jsonobj.Object{{Key: "entries", Value: entries}, {Key: "has_more", Value: page.HasMore}}
		if start == nil {
			body = append(body, jsonobj.Field{Key: "per_page", Value: q.Limit})
		}
		return apigw.JSON(http.StatusOK, append(body, jsonobj.Field{Key: "cursor", Value: cursor}))
	}}
}

// activityJSON renders an activity with the fields of the recorded account-wide list
// (docs/api.md, "Objects"), its date in the account's time zone.
func activityJSON(a accountseries.Activity, acc model.Account, loc *time.Location) jsonobj.Object {
	return jsonobj.Object{
		{Key: "description", Value: a.Description},
		{Key: "activity-mrr-movement", Value: a.Movement},
		{Key: "activity-mrr", Value: a.MRR},
		{Key: "activity-arr", Value: 12 * a.MRR},
		{Key: "date", Value: timefmt.Offset(a.Date.In(loc))},
		{Key: "type", Value: a.Type},
		{Key: "currency", Value: acc.Currency},
		{Key: "subscription-external-id", Value: a.SubscriptionExternalID},
		{Key: "subscription-set-external-id", Value: setExternalID(a.SubscriptionSetExternalID, a.SubscriptionExternalID)},
		{Key: "plan-external-id", Value: a.PlanExternalID},
		{Key: "customer-name", Value: a.CustomerName},
		{Key: "customer-uuid", Value: a.CustomerUUID},
		{Key: "customer-external-id", Value: a.CustomerExternalID},
		{Key: "billing-connector-uuid", Value: a.DataSourceUUID},
		{Key: "uuid", Value: a.UUID},
	}
}

// setExternalID is a subscription's set as the Metrics API shows it: a subscription
// imported without a set is its own set, named by its external id (recorded), never null.
func setExternalID(set, subscription string) string {
	if set == "" {
		return subscription
	}
	return set
}

func parseActivityQuery(r *apigw.Request) (accountseries.ActivityQuery, error) {
	var q accountseries.ActivityQuery
	if err := rejectPage(r); err != nil {
		return q, err
	}
	if !r.HasQuery("per_page") && r.HasQuery("per-page") {
		r.Event.QueryStringParameters["per_page"] = r.Query("per-page") // the legacy spelling
	}
	limit, err := r.PerPage()
	if err != nil {
		return q, err
	}
	q.Limit = limit
	from, err := activityTime(r, "start-date", false)
	if err != nil {
		return q, err
	}
	to, err := activityTime(r, "end-date", true)
	if err != nil {
		return q, err
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		return q, apperr.BadRequest("end-date", "Parameter \"end-date\" must not be before \"start-date\"")
	}
	if !from.IsZero() {
		q.From = accountseries.OrderTime(from)
	}
	if !to.IsZero() {
		q.To = accountseries.OrderTime(to)
	}
	if t := r.Query("type"); t != "" {
		if !slices.Contains(activityTypes, t) {
			return q, apperr.BadRequest("type", "Invalid value for parameter \"type\": %q (one of %s)", t, strings.Join(activityTypes, ", "))
		}
		q.Type = t
	}
	switch r.Query("order") {
	case "", "date":
	case "-date":
		q.Descending = true
	default:
		return q, apperr.BadRequest("order", "Invalid value for parameter \"order\": %q (date or -date)", r.Query("order"))
	}
	return q, nil
}

// activityTime parses an optional ISO 8601 bound; a date alone as an upper bound
// covers that whole day.
func activityTime(r *apigw.Request, param string, upper bool) (time.Time, error) {
	raw := strings.TrimSpace(r.Query(param))
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
