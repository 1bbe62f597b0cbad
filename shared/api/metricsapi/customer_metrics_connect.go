package metricsapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// subscriptionRef names a subscription in a connect/disconnect body: its data source and
// either its external id or its uuid (sub_… or the bare Metrics-API uuid).
type subscriptionRef struct {
	DataSourceUUID string `json:"data_source_uuid"`
	ExternalID     string `json:"external_id"`
	UUID           string `json:"uuid"`
}

type connectBody struct {
	Subscriptions []subscriptionRef `json:"subscriptions"`
}

// ConnectSubscriptions is POST /v1/customers/{customer_uuid}/connect_subscriptions
// (docs/metrics-engine.md §4.5): the pair is recorded now and the metrics follow
// asynchronously (202 {}).
func ConnectSubscriptions(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		cust, subs, err := connectRequest(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if !slices.ContainsFunc(subs, cancelled) {
			return apigw.Response{}, apperr.Unprocessable("subscriptions",
				"At least one of the subscriptions to connect must be cancelled")
		}
		now := d.Now()
		for _, s := range subs[1:] {
			if err := storage(d).PutConnection(ctx, store.Connection{AccountID: r.AccountID, CustomerUUID: cust.UUID,
				A: subs[0].UUID, B: s.UUID, CreatedAt: now}); err != nil {
				return apigw.Response{}, err
			}
		}
		return accepted(ctx, d, r, cust.UUID)
	}}
}

// DisconnectSubscriptions is POST /v1/customers/{customer_uuid}/disconnect_subscriptions:
// every connection among the named subscriptions is undone (202 {}, asynchronous).
func DisconnectSubscriptions(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		cust, subs, err := connectRequest(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		for i := range subs {
			for _, other := range subs[i+1:] {
				if err := storage(d).DeleteConnection(ctx, r.AccountID, cust.UUID, subs[i].UUID, other.UUID); err != nil {
					return apigw.Response{}, err
				}
			}
		}
		return accepted(ctx, d, r, cust.UUID)
	}}
}

// accepted enqueues the customer's recomputation and answers 202 {}. The request id is
// the nonce, so two quick changes both get their recomputation.
func accepted(ctx context.Context, d *api.Deps, r *apigw.Request, customerUUID string) (apigw.Response, error) {
	nonce := r.Event.RequestContext.RequestID
	if nonce == "" {
		nonce = strconv.FormatInt(d.Now().UnixNano(), 10)
	}
	if err := d.Jobs.Send(ctx, jobs.Recompute(r.AccountID, customerUUID, nonce)); err != nil {
		return apigw.Response{}, err
	}
	return apigw.JSON(http.StatusAccepted, jsonobj.Object{})
}

func cancelled(s model.Subscription) bool { return len(s.CancellationDates) > 0 }

// connectRequest validates the body and resolves every subscription of the customer:
// 400 for a malformed body or an ambiguous external id, 404 for an unknown customer or
// subscription (another customer's counts as unknown), 422 for the same one twice.
func connectRequest(ctx context.Context, d *api.Deps, r *apigw.Request) (model.Customer, []model.Subscription, error) {
	var b connectBody
	if err := r.Decode(&b); err != nil {
		return model.Customer{}, nil, err
	}
	cust, err := api.LoadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
	if err != nil {
		return model.Customer{}, nil, err
	}
	if len(b.Subscriptions) < 2 {
		return model.Customer{}, nil, apperr.BadRequest("subscriptions", "Parameter \"subscriptions\" needs at least two subscriptions")
	}
	owned, err := customerSubscriptions(ctx, d, cust)
	if err != nil {
		return model.Customer{}, nil, err
	}
	var out []model.Subscription
	for _, ref := range b.Subscriptions {
		s, err := resolveSubscription(ref, owned)
		if err != nil {
			return model.Customer{}, nil, err
		}
		if slices.ContainsFunc(out, func(o model.Subscription) bool { return o.UUID == s.UUID }) {
			return model.Customer{}, nil, apperr.Unprocessable("subscriptions", "A subscription cannot be connected to itself")
		}
		out = append(out, s)
	}
	return cust, out, nil
}

// customerSubscriptions reads the customer's subscriptions through its billing index.
func customerSubscriptions(ctx context.Context, d *api.Deps, cust model.Customer) ([]model.Subscription, error) {
	idx, err := storage(d).GetBillingIndex(ctx, cust.AccountID, cust.UUID)
	if err != nil {
		return nil, err
	}
	uuids := make([]string, 0, len(idx.Subscriptions))
	for id := range idx.Subscriptions {
		uuids = append(uuids, id)
	}
	slices.Sort(uuids)
	byUUID, err := storage(d).GetSubscriptions(ctx, cust.AccountID, uuids)
	if err != nil {
		return nil, err
	}
	out := make([]model.Subscription, 0, len(byUUID))
	for _, id := range uuids {
		if s, ok := byUUID[id]; ok && s.CustomerUUID == cust.UUID {
			out = append(out, s)
		}
	}
	return out, nil
}

func resolveSubscription(ref subscriptionRef, owned []model.Subscription) (model.Subscription, error) {
	if ref.DataSourceUUID == "" {
		return model.Subscription{}, apperr.MissingParam("data_source_uuid")
	}
	var matches []model.Subscription
	switch {
	case ref.UUID != "":
		id := ids.Subscription + ids.Bare(ref.UUID, ids.Subscription)
		for _, s := range owned {
			if s.UUID == id && s.DataSourceUUID == ref.DataSourceUUID {
				matches = append(matches, s)
			}
		}
	case ref.ExternalID != "":
		for _, s := range owned {
			if s.ExternalID == ref.ExternalID && s.DataSourceUUID == ref.DataSourceUUID {
				matches = append(matches, s)
			}
		}
		if len(matches) > 1 {
			return model.Subscription{}, apperr.BadRequest("external_id",
				"External ID %q is shared by several subscriptions of the data source: use their uuid", ref.ExternalID)
		}
	default:
		return model.Subscription{}, apperr.BadRequest("external_id", "Parameter \"external_id\" or \"uuid\" is missing")
	}
	if len(matches) == 0 {
		name := ref.UUID
		if name == "" {
			name = ref.ExternalID
		}
		return model.Subscription{}, apperr.NotFound("subscriptions", "Subscription %q does not exist", name)
	}
	return matches[0], nil
}
