package metricsapi

import (
	"context"
	"crypto/sha256"
	"encoding/binary"

	"github.com/subsight/subsight/shared/activityview"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// ListCustomerSubscriptions is GET /v1/customers/{customer_uuid}/subscriptions, the
// Metrics-API view (docs/api.md, "Objects"): rows written by the recomputation, by
// start date; cursor and per_page; the first page adds per_page and page.
func ListCustomerSubscriptions(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		cust, pg, err := customerPage(ctx, d, r, "customer_subscriptions")
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[store.MetricsSubscription], error) {
			return storage(d).ListMetricsSubscriptions(ctx, r.AccountID, cust.UUID, limit, start)
		})
		if err != nil {
			return apigw.Response{}, err
		}
		entries := make([]jsonobj.Object, len(page.Items))
		for i, s := range page.Items {
			var end *string
			if s.EndDate != nil {
				v := timefmt.Offset(s.EndDate.UTC())
				end = &v
			}
			entries[i] = jsonobj.Object{
				{Key: "id", Value: s.ID}, {Key: "external_id", Value: s.ExternalID},
				{Key: "subscription_set_external_id", Value: activityview.SetExternalID(s.SetExternalID, s.ExternalID)},
				{Key: "quantity", Value: s.Quantity}, {Key: "uuid", Value: s.UUID},
				{Key: "mrr", Value: s.MRR}, {Key: "arr", Value: s.ARR}, {Key: "status", Value: s.Status},
				{Key: "plan", Value: s.PlanName}, {Key: "billing-cycle", Value: s.BillingCycle},
				{Key: "billing-cycle-count", Value: s.BillingCycleCount},
				{Key: "start-date", Value: timefmt.Offset(s.StartDate.UTC())}, {Key: "end-date", Value: end},
				{Key: "currency", Value: s.Currency}, {Key: "currency-sign", Value: model.CurrencySigns[s.Currency]},
			}
		}
		return renderCustomerPage(d, r, pg, entries, page.Next, page.HasMore)
	}}
}

// ListCustomerActivities is GET /v1/customers/{customer_uuid}/activities: the
// customer's MRR movements as the account series keep them, oldest first.
func ListCustomerActivities(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		cust, pg, err := customerPage(ctx, d, r, "customer_activities")
		if err != nil {
			return apigw.Response{}, err
		}
		acc, err := storage(d).GetAccount(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[store.Activity], error) {
			return storage(d).ListCustomerActivities(ctx, r.AccountID, cust.UUID, limit, start)
		})
		if err != nil {
			return apigw.Response{}, err
		}
		entries := make([]jsonobj.Object, len(page.Items))
		for i, a := range page.Items {
			entries[i] = jsonobj.Object{
				{Key: "id", Value: stableNumber(a.UUID)}, {Key: "description", Value: a.Description},
				{Key: "activity-mrr-movement", Value: a.Movement}, {Key: "activity-mrr", Value: a.MRR},
				{Key: "activity-arr", Value: 12 * a.MRR}, {Key: "date", Value: timefmt.Offset(a.Date.UTC())},
				{Key: "type", Value: a.Type}, {Key: "currency", Value: acc.Currency},
				{Key: "currency-sign", Value: model.CurrencySigns[acc.Currency]},
				{Key: "subscription-external-id", Value: a.SubscriptionExternalID},
			}
		}
		return renderCustomerPage(d, r, pg, entries, page.Next, page.HasMore)
	}}
}

// customerPage reads what both per-customer listings need: the customer (404 when it is
// not the account's) and the paging parameters, the cursor bound to this customer.
func customerPage(ctx context.Context, d *api.Deps, r *apigw.Request, name string) (model.Customer, api.Paging, error) {
	cust, err := api.LoadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
	if err != nil {
		return model.Customer{}, api.Paging{}, err
	}
	pg, err := api.ReadCursor(d, r, api.Listing{Scope: name + "?" + cust.UUID, Legacy: true})
	return cust, pg, err
}

// renderCustomerPage renders a page of a customer's subscriptions or activities:
// {"entries", "has_more", "per_page", "page", "cursor"} (the first page, or page=N) or
// {"entries", "cursor", "has_more"} (cursor pages), as recorded; the cursor only when
// there is more.
func renderCustomerPage(d *api.Deps, r *apigw.Request, pg api.Paging, entries []jsonobj.Object,
	nextPage store.PageToken, hasMore bool) (apigw.Response, error) {
	if entries == nil {
		entries = []jsonobj.Object{}
	}
	return pg.Render(d, r, api.Page{Key: "entries", Entries: entries, Next: nextPage, HasMore: hasMore, CursorOnlyWithMore: true,
		Layout: api.LegacyHasMoreThenCursor, LegacyAfterHasMore: jsonobj.Object{{Key: "per_page", Value: pg.PerPage}, {Key: "page", Value: pg.Page}}})
}

// stableNumber is the integer id of an object known by uuid (below 2^53, safe for
// JavaScript clients).
func stableNumber(uuid string) int64 {
	sum := sha256.Sum256([]byte(uuid))
	return int64(binary.BigEndian.Uint64(sum[:8]) >> 11)
}
