package billing

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// subscriptionJSON renders the Import-API view of a subscription (docs/api.md, "Objects").
func subscriptionJSON(s model.Subscription, withCustomer bool) jsonobj.Object {
	dates := make([]string, len(s.CancellationDates))
	for i, t := range s.CancellationDates {
		dates[i] = timefmt.Millis(t)
	}
	o := jsonobj.Object{{Key: "uuid", Value: s.UUID}, {Key: "external_id", Value: s.ExternalID}}
	if s.SubscriptionSetExternalID != "" {
		o = append(o, jsonobj.Field{Key: "subscription_set_external_id", Value: s.SubscriptionSetExternalID})
	}
	o = append(o, jsonobj.Field{Key: "plan_uuid", Value: s.PlanUUID},
		jsonobj.Field{Key: "data_source_uuid", Value: s.DataSourceUUID},
		jsonobj.Field{Key: "cancellation_dates", Value: dates})
	if withCustomer {
		o = append(o, jsonobj.Field{Key: "customer_uuid", Value: s.CustomerUUID})
	}
	return o
}

// ListImportSubscriptions is GET /v1/import/customers/{customer_uuid}/subscriptions,
// oldest first.
func ListImportSubscriptions(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := importCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		pg, err := api.ReadCursor(d, r, api.Listing{Scope: "import-subscriptions:" + c.UUID, Legacy: true})
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[model.Subscription], error) {
			return storage(d).ListCustomerSubscriptions(ctx, r.AccountID, c.UUID, limit, start)
		})
		if err != nil {
			return apigw.Response{}, err
		}
		out := make([]jsonobj.Object, len(page.Items))
		for i, s := range page.Items {
			out[i] = subscriptionJSON(s, false)
		}
		return importRecordsPage(d, r, pg, c.UUID, "subscriptions", out, page)
	}}
}

// UpdateSubscription is PATCH /v1/import/subscriptions/{subscription_uuid}: cancel
// with cancelled_at (added to the history), or replace the whole cancellation_dates
// history ([] clears it). 202 with the subscription and its customer_uuid.
func UpdateSubscription(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("subscription_uuid")
		notFound := apperr.NotFound("subscription_uuid", "Subscription not found")
		if !ids.Valid(uuid, ids.Subscription) {
			return apigw.Response{}, notFound
		}
		sub, err := storage(d).GetSubscription(ctx, r.AccountID, uuid)
		if errors.Is(err, store.ErrNotFound) {
			return apigw.Response{}, notFound
		}
		if err != nil {
			return apigw.Response{}, err
		}
		var b struct {
			CancelledAt       optional.Value[string]    `json:"cancelled_at"`
			CancellationDates optional.Value[[]*string] `json:"cancellation_dates"`
		}
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		var dates []time.Time
		switch {
		case b.CancellationDates.Set:
			for i, s := range b.CancellationDates.V {
				if s == nil {
					return apigw.Response{}, apperr.Unprocessable("cancellation_dates", "cancellation_dates[%d] is not a date", i)
				}
				t, err := timefmt.Parse(*s)
				if err != nil {
					return apigw.Response{}, apperr.Unprocessable("cancellation_dates", "%q is not a valid ISO 8601 date", *s)
				}
				if !slices.ContainsFunc(dates, t.Equal) {
					dates = append(dates, t)
				}
			}
		case b.CancelledAt.Present():
			t, err := timefmt.Parse(b.CancelledAt.V)
			if err != nil {
				return apigw.Response{}, apperr.Unprocessable("cancelled_at", "%q is not a valid ISO 8601 date", b.CancelledAt.V)
			}
			dates = slices.Clone(sub.CancellationDates)
			if !slices.ContainsFunc(dates, t.Equal) {
				dates = append(dates, t)
			}
		default:
			return apigw.Response{}, apperr.MissingParam("cancelled_at")
		}
		slices.SortFunc(dates, func(a, b time.Time) int { return a.Compare(b) })
		sub, err = storage(d).SetCancellationDates(ctx, sub, dates, d.Now())
		if errors.Is(err, store.ErrNotFound) {
			return apigw.Response{}, notFound
		}
		if err != nil {
			return apigw.Response{}, err
		}
		job := jobs.Recompute(r.AccountID, sub.CustomerUUID, "subscription:"+sub.UUID+":"+strconv.FormatInt(d.Now().UnixNano(), 10))
		if err := d.Jobs.Send(ctx, job); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusAccepted, subscriptionJSON(sub, true))
	}}
}

// importRecordsPage renders a page of one customer's Import-API records: customer_uuid,
// the entries under key, on the first page (or page=N) current_page and total_pages,
// then cursor and has_more.
func importRecordsPage[T any](d *api.Deps, r *apigw.Request, pg api.Paging, customerUUID, key string,
	entries []jsonobj.Object, page store.Page[T]) (apigw.Response, error) {
	counts, err := api.PageCount(pg, page, nil)
	if err != nil {
		return apigw.Response{}, err
	}
	return pg.Render(d, r, api.Page{Head: jsonobj.Object{{Key: "customer_uuid", Value: customerUUID}}, Key: key, Entries: entries,
		Legacy: counts, Next: page.Next, HasMore: page.HasMore})
}
