package api

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/timefmt"
)

// ListCustomerSubscriptions is GET /v1/customers/{customer_uuid}/subscriptions, the
// Metrics-API view (docs/api.md, "Objects"): rows written by the recomputation, by
// start date; cursor and per_page; the first page adds per_page and page.
func ListCustomerSubscriptions(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		cust, perPage, start, scope, err := customerPage(ctx, d, r, "customer_subscriptions")
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := d.Store.ListMetricsSubscriptions(ctx, r.AccountID, cust.UUID, perPage, start)
		if err != nil {
			return apigw.Response{}, err
		}
		entries := make([]jsonobj.Object, len(page.Rows))
		for i, s := range page.Rows {
			var end *string
			if s.EndDate != nil {
				v := timefmt.Offset(s.EndDate.UTC())
				end = &v
			}
			entries[i] = jsonobj.Object{
				{Key: "id", Value: s.ID}, {Key: "external_id", Value: s.ExternalID},
				{Key: "subscription_set_external_id", Value: setExternalID(s.SetExternalID, s.ExternalID)},
				{Key: "quantity", Value: s.Quantity}, {Key: "uuid", Value: s.UUID},
				{Key: "mrr", Value: s.MRR}, {Key: "arr", Value: s.ARR}, {Key: "status", Value: s.Status},
				{Key: "plan", Value: s.PlanName}, {Key: "billing-cycle", Value: s.BillingCycle},
				{Key: "billing-cycle-count", Value: s.BillingCycleCount},
				{Key: "start-date", Value: timefmt.Offset(s.StartDate.UTC())}, {Key: "end-date", Value: end},
				{Key: "currency", Value: s.Currency}, {Key: "currency-sign", Value: model.CurrencySigns[s.Currency]},
			}
		}
		return pageResponse(d, r, scope, start == nil, perPage, entries, page.LastKey, page.HasMore)
	}}
}

// ListCustomerActivities is GET /v1/customers/{customer_uuid}/activities: the
// customer's MRR movements as the account series keep them, oldest first.
func ListCustomerActivities(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		cust, perPage, start, scope, err := customerPage(ctx, d, r, "customer_activities")
		if err != nil {
			return apigw.Response{}, err
		}
		acc, err := d.Store.GetAccount(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := d.Store.CustomerActivityItems(ctx, r.AccountID, cust.UUID, perPage, start)
		if err != nil {
			return apigw.Response{}, err
		}
		var acts []accountseries.Activity
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &acts); err != nil {
			return apigw.Response{}, err
		}
		entries := make([]jsonobj.Object, len(acts))
		for i, a := range acts {
			entries[i] = jsonobj.Object{
				{Key: "id", Value: stableNumber(a.UUID)}, {Key: "description", Value: a.Description},
				{Key: "activity-mrr-movement", Value: a.Movement}, {Key: "activity-mrr", Value: a.MRR},
				{Key: "activity-arr", Value: 12 * a.MRR}, {Key: "date", Value: timefmt.Offset(a.Date.UTC())},
				{Key: "type", Value: a.Type}, {Key: "currency", Value: acc.Currency},
				{Key: "currency-sign", Value: model.CurrencySigns[acc.Currency]},
				{Key: "subscription-external-id", Value: a.SubscriptionExternalID},
			}
		}
		return pageResponse(d, r, scope, start == nil, perPage, entries, page.LastKey, page.HasMore)
	}}
}

// customerPage reads what both per-customer listings need: the customer (404 when it is
// not the account's), per_page, and the cursor's start key, bound to this customer.
func customerPage(ctx context.Context, d *app.Deps, r *apigw.Request, listing string) (
	model.Customer, int, map[string]types.AttributeValue, string, error) {
	perPage, err := r.PerPage()
	if err != nil {
		return model.Customer{}, 0, nil, "", err
	}
	cust, err := loadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
	if err != nil {
		return model.Customer{}, 0, nil, "", err
	}
	scope := listing + "?" + cust.UUID
	start, err := cursorStart(d, r, scope)
	return cust, perPage, start, scope, err
}

// pageResponse renders {"entries", "has_more", "per_page", "page", "cursor"} (the first
// page) or {"entries", "cursor", "has_more"} (later pages), as recorded.
func pageResponse(d *app.Deps, r *apigw.Request, scope string, first bool, perPage int, entries []jsonobj.Object,
	lastKey map[string]types.AttributeValue, hasMore bool) (apigw.Response, error) {
	var next *string
	if hasMore {
		c, err := d.Cursors.Encode(r.AccountID, scope, lastKey)
		if err != nil {
			return apigw.Response{}, err
		}
		next = c
	}
	if entries == nil {
		entries = []jsonobj.Object{}
	}
	if first {
		return apigw.JSON(http.StatusOK, jsonobj.Object{{Key: "entries", Value: entries}, {Key: "has_more", Value: hasMore},
			{Key: "per_page", Value: perPage}, {Key: "page", Value: 1}, {Key: "cursor", Value: next}})
	}
	return apigw.JSON(http.StatusOK, jsonobj.Object{{Key: "entries", Value: entries}, {Key: "cursor", Value: next},
		{Key: "has_more", Value: hasMore}})
}

// stableNumber is the integer id of an object known by uuid (below 2^53, safe for
// JavaScript clients).
func stableNumber(uuid string) int64 {
	sum := sha256.Sum256([]byte(uuid))
	return int64(binary.BigEndian.Uint64(sum[:8]) >> 11)
}
