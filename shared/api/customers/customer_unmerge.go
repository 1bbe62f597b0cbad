package customers

import (
	"context"
	"net/http"
	"slices"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

type unmergeBody struct {
	CustomerUUID      string `json:"customer_uuid"`
	DataSourceUUID    string `json:"data_source_uuid"`
	ExternalID        string `json:"external_id"`
	MoveToNewCustomer any    `json:"move_to_new_customer"`
}

// UnmergeCustomers is POST /v1/customers/unmerges, the mirror of a merge: the data
// source customer (data_source_uuid, external_id) of a merged customer becomes a
// customer of its own, with its invoices, subscriptions and subscription events and
// what move_to_new_customer names (tasks, opportunities, notes; by default they stay).
// The request is checked now and carried out by the jobs worker, grouped with the
// customer's other jobs, which recomputes both customers: 202 {} (recorded).
func UnmergeCustomers(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var b unmergeBody
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		for _, p := range []struct{ param, value string }{{"customer_uuid", b.CustomerUUID},
			{"data_source_uuid", b.DataSourceUUID}, {"external_id", b.ExternalID}} {
			if p.value == "" {
				return apigw.Response{}, apperr.MissingParam(p.param)
			}
		}
		move, err := movable(b.MoveToNewCustomer)
		if err != nil {
			return apigw.Response{}, err
		}
		c, err := api.LoadCustomer(ctx, d, r.AccountID, b.CustomerUUID)
		if err != nil {
			return apigw.Response{}, err
		}
		if !c.HasSource(b.DataSourceUUID, b.ExternalID) {
			return apigw.Response{}, apperr.Unprocessable("external_id",
				"The customer has no data source customer with external ID %q in data source %q", b.ExternalID, b.DataSourceUUID)
		}
		if len(c.DataSourceUUIDs) < 2 {
			return apigw.Response{}, apperr.Unprocessable("customer_uuid", "Only a merged customer can be unmerged")
		}
		u := store.UnmergeRequest{AccountID: r.AccountID, CustomerUUID: c.UUID, DataSourceUUID: b.DataSourceUUID,
			ExternalID: b.ExternalID, NewCustomerUUID: model.NewCustomerUUID(), Move: move, RequestedAt: d.Now()}
		if err := storage(d).PutUnmergeRequest(ctx, u); err != nil {
			return apigw.Response{}, err
		}
		if err := d.Jobs.Send(ctx, jobs.Unmerge(r.AccountID, c.UUID, u.DataSourceUUID+"#"+u.ExternalID)); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusAccepted, jsonobj.Object{})
	}}
}

// movable reads move_to_new_customer: a list of tasks, opportunities and notes.
func movable(v any) ([]string, error) {
	bad := apperr.Unprocessable("move_to_new_customer",
		"move_to_new_customer must be a list of \"tasks\", \"opportunities\" and \"notes\"")
	if v == nil {
		return []string{}, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, bad
	}
	out := []string{}
	for _, x := range list {
		s, ok := x.(string)
		if !ok || !slices.Contains(model.UnmergeMovable, s) {
			return nil, bad
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
