package billing

import (
	"context"
	"errors"
	"net/http"
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

func errInvoiceNotFound() *apperr.Error {
	return apperr.NotFound("invoice", "Invoice not found")
}

func errInvalidInvoiceUUID() *apperr.Error {
	return apperr.Unprocessable("uuid", "Invalid UUID passed")
}

// importCustomer reads the customer of an Import-API path (family B 404).
func importCustomer(ctx context.Context, d *api.Deps, accountID, uuid string) (model.Customer, error) {
	c, err := api.LoadCustomer(ctx, d, accountID, uuid)
	if _, ok := apperr.As(err); ok {
		return c, apperr.NotFound("customer_uuid", "Customer not found")
	}
	return c, err
}

// validationType reads validation_type: every stored invoice is valid (an invalid one
// is refused when imported), so "invalid" lists nothing.
func validationType(r *apigw.Request) (bool, error) {
	switch v := r.Query("validation_type"); v {
	case "", "valid", "all":
		return true, nil
	case "invalid":
		return false, nil
	default:
		return false, apperr.BadRequest("validation_type", "validation_type must be one of valid, invalid, all")
	}
}

// ListImportInvoices is GET /v1/import/customers/{customer_uuid}/invoices.
func ListImportInvoices(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := importCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		pg, p, err := customerInvoices(ctx, d, r, c, "import-invoices:"+c.UUID+":"+r.Query("validation_type"))
		if err != nil {
			return apigw.Response{}, err
		}
		view, err := invoiceViewOf(r, false)
		if err != nil {
			return apigw.Response{}, err
		}
		out := []jsonobj.Object{}
		for _, inv := range p.Items {
			if view.shows(inv) {
				out = append(out, view.render(inv))
			}
		}
		return importRecordsPage(d, r, pg, c.UUID, "invoices", out, p)
	}}
}

// loadInvoice reads an invoice by uuid: a malformed uuid is ChartMogul's 422, an
// unknown one its 404.
func loadInvoice(ctx context.Context, d *api.Deps, accountID, uuid string) (model.Invoice, error) {
	get := func(ctx context.Context, id string) (model.Invoice, error) {
		return storage(d).GetInvoice(ctx, accountID, id)
	}
	return api.LoadByID(ctx, uuid, ids.Invoice, errInvalidInvoiceUUID(), errInvoiceNotFound(), get)
}

// GetInvoice is GET /v1/invoices/{invoice_uuid}.
func GetInvoice(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		if _, err := validationType(r); err != nil {
			return apigw.Response{}, err
		}
		view, err := invoiceViewOf(r, true)
		if err != nil {
			return apigw.Response{}, err
		}
		inv, err := loadInvoice(ctx, d, r.AccountID, r.PathParam("invoice_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		if !view.shows(inv) {
			return apigw.Response{}, errInvoiceNotFound()
		}
		return apigw.JSON(http.StatusOK, view.render(inv))
	}}
}

// DeleteInvoice is DELETE /v1/invoices/{invoice_uuid} and DELETE
// /v1/invoices?data_source_uuid=&external_id= (chartmogul-node
// Invoice.destroyByExternalId); handle_as_user_edit is accepted and ignored, as these
// sources have no user edits.
func DeleteInvoice(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		inv, err := requestedInvoice(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		return deleteInvoice(ctx, d, inv)
	}}
}

func invoiceByExternalID(ctx context.Context, d *api.Deps, r *apigw.Request) (model.Invoice, error) {
	dsUUID, ext := r.Query("data_source_uuid"), r.Query("external_id")
	if dsUUID == "" {
		return model.Invoice{}, apperr.MissingParam("data_source_uuid")
	}
	if ext == "" {
		return model.Invoice{}, apperr.MissingParam("external_id")
	}
	if _, err := api.DataSource(ctx, d, r.AccountID, dsUUID); err != nil {
		return model.Invoice{}, err
	}
	inv, err := storage(d).GetInvoice(ctx, r.AccountID, model.InvoiceUUID(r.AccountID, dsUUID, ext))
	if errors.Is(err, store.ErrNotFound) {
		return model.Invoice{}, errInvoiceNotFound()
	}
	return inv, err
}

func deleteInvoice(ctx context.Context, d *api.Deps, inv model.Invoice) (apigw.Response, error) {
	if err := storage(d).DeleteInvoice(ctx, inv, d.Now()); err != nil {
		return apigw.Response{}, err
	}
	if err := storage(d).DeleteRecordLocators(ctx, inv.AccountID, recordUUIDs(inv)); err != nil {
		return apigw.Response{}, err
	}
	job := jobs.Recompute(inv.AccountID, inv.CustomerUUID, "delete:"+inv.UUID+":"+strconv.FormatInt(d.Now().UnixNano(), 10))
	if err := d.Jobs.Send(ctx, job); err != nil {
		return apigw.Response{}, err
	}
	return apigw.NoContent()
}
