package customers

import (
	"context"
	"errors"
	"net/http"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/store"
)

// customerRef names a customer by uuid or by data source + external id.
type customerRef struct {
	CustomerUUID   string `json:"customer_uuid"`
	DataSourceUUID string `json:"data_source_uuid"`
	ExternalID     string `json:"external_id"`
}

type mergeBody struct {
	From *customerRef `json:"from"`
	Into *customerRef `json:"into"`
}

// MergeCustomers is POST /v1/customers/merges (docs/metrics-engine.md §4.5): both
// customers are checked now, the merge runs in the jobs worker (grouped with the into
// customer's other jobs), and the answer is 202 {}.
func MergeCustomers(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var b mergeBody
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		if b.From == nil {
			return apigw.Response{}, apperr.MissingParam("from")
		}
		if b.Into == nil {
			return apigw.Response{}, apperr.MissingParam("into")
		}
		from, err := resolveCustomer(ctx, d, r.AccountID, *b.From)
		if err != nil {
			return apigw.Response{}, err
		}
		into, err := resolveCustomer(ctx, d, r.AccountID, *b.Into)
		if err != nil {
			return apigw.Response{}, err
		}
		if from == into {
			return apigw.Response{}, apperr.Unprocessable("into", "A customer cannot be merged into itself")
		}
		if err := storage(d).PutMergeRequest(ctx, store.MergeRequest{AccountID: r.AccountID, IntoUUID: into,
			FromUUID: from, RequestedAt: d.Now()}); err != nil {
			return apigw.Response{}, err
		}
		if err := d.Jobs.Send(ctx, jobs.Merge(r.AccountID, into, from)); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusAccepted, jsonobj.Object{})
	}}
}

// resolveCustomer finds a customer of the account; 400 when the reference is
// incomplete, the customer 404 when there is no such customer.
func resolveCustomer(ctx context.Context, d *api.Deps, accountID string, ref customerRef) (string, error) {
	if ref.CustomerUUID != "" {
		c, err := api.LoadCustomer(ctx, d, accountID, ref.CustomerUUID)
		return c.UUID, err
	}
	if ref.DataSourceUUID == "" {
		return "", apperr.MissingParam("customer_uuid")
	}
	if ref.ExternalID == "" {
		return "", apperr.MissingParam("external_id")
	}
	if !ids.Valid(ref.DataSourceUUID, ids.DataSource) {
		return "", apperr.NotFound("data_source_uuid", "Data source %q does not exist", ref.DataSourceUUID)
	}
	uuid, err := storage(d).CustomerUUIDByExternalID(ctx, accountID, ref.DataSourceUUID, ref.ExternalID)
	if errors.Is(err, store.ErrNotFound) {
		return "", apperr.NotFound("external_id", "Customer with external ID %q does not exist", ref.ExternalID)
	}
	if err != nil {
		return "", err
	}
	c, err := api.LoadCustomer(ctx, d, accountID, uuid)
	return c.UUID, err
}
