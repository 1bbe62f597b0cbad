package billing

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// statusAttempts bounds the re-reads when a record changes between read and write.
const statusAttempts = 3

// UpdateInvoiceStatus is PUT /v1/data_sources/{data_source_uuid}/invoices/{invoice_external_id}/status
// with {"status":"voided"|"written_off"} (chartmogul-node Invoice.updateStatus): 200
// {"external_id","status"}; a refused transition is a 422 (docs/api.md, "Endpoints"). The
// customer's metrics are recomputed through the jobs queue, as after a deletion.
func UpdateInvoiceStatus(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var b struct {
			Status *string `json:"status"`
		}
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		if b.Status == nil || *b.Status == "" {
			return apigw.Response{}, apperr.MissingParam("status")
		}
		status := *b.Status
		if !model.ValidInvoiceStatus(status) {
			return apigw.Response{}, apperr.Unprocessable("status", "Status must be one of %s, %s", model.InvoiceVoided, model.InvoiceWrittenOff)
		}
		dsUUID := r.PathParam("data_source_uuid")
		if _, err := api.LiveDataSource(ctx, d, r.AccountID, dsUUID); err != nil {
			return apigw.Response{}, err
		}
		before, inv, err := setInvoiceStatus(ctx, d, model.InvoiceUUID(r.AccountID, dsUUID, r.PathParam("invoice_external_id")), r.AccountID, status)
		if err != nil {
			return apigw.Response{}, err
		}
		if inv, err = recordEdits(ctx, d, r, before, inv, invoiceEdit); err != nil {
			return apigw.Response{}, err
		}
		// Sent also when the status was already set: a retry after a failed send must
		// still recompute. The nonce is the stored change, so repeats are deduplicated.
		job := jobs.Recompute(inv.AccountID, inv.CustomerUUID,
			"status:"+inv.UUID+":"+inv.Status+":"+strconv.FormatInt(inv.UpdatedAt.UnixNano(), 10))
		if err := d.Jobs.Send(ctx, job); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, jsonobj.Object{{Key: "external_id", Value: inv.ExternalID}, {Key: "status", Value: inv.Status}})
	}}
}

// setInvoiceStatus applies the transition with the import pipeline's own step, as the
// Stripe source does, and answers its refusals as this endpoint does.
func setInvoiceStatus(ctx context.Context, d *api.Deps, invoiceUUID, accountID, status string) (model.Invoice, model.Invoice, error) {
	before, after, err := d.Imports.SetInvoiceStatus(ctx, accountID, invoiceUUID, status)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return model.Invoice{}, model.Invoice{}, errInvoiceNotFound()
	case errors.Is(err, imports.ErrStatusTransition):
		return model.Invoice{}, model.Invoice{}, apperr.Unprocessable("status", "Status transition is not allowed")
	}
	return before, after, err
}
