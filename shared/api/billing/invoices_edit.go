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
	"github.com/subsight/subsight/shared/timefmt"
)

// requestedInvoice is the invoice a request names: by the uuid in the path, else by
// data_source_uuid and external_id in the query string.
func requestedInvoice(ctx context.Context, d *api.Deps, r *apigw.Request) (model.Invoice, error) {
	if uuid := r.PathParam("invoice_uuid"); uuid != "" {
		return loadInvoice(ctx, d, r.AccountID, uuid)
	}
	return invoiceByExternalID(ctx, d, r)
}

// invoiceWithState is the invoice as the disabled_state and update answers show it: the
// /v1/invoices view with every record and its disabled state.
func invoiceWithState(inv model.Invoice) jsonobj.Object {
	return invoiceView{customer: true, withDisabled: true}.render(inv)
}

// SetInvoiceDisabled is PATCH /v1/invoices/{invoice_uuid}/disabled_state and PATCH
// /v1/invoices/disabled_state?data_source_uuid=&external_id= with {"disabled": bool}: a
// disabled invoice counts for nothing, with its line items and transactions.
func SetInvoiceDisabled(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		return setDisabled(ctx, d, r, disabling[model.Invoice]{
			find: func(ctx context.Context, _ disabledBody) (model.Invoice, error) { return requestedInvoice(ctx, d, r) },
			state: func(next *model.Invoice) *model.DisabledState {
				next.UpdatedAt = d.Now()
				return &next.DisabledState
			},
			save: storage(d).SaveInvoice,
			owner: func(inv model.Invoice) (string, string) {
				return inv.CustomerUUID, inv.UUID + ":" + version(inv.UpdatedAt.UnixNano())
			},
			render: invoiceWithState,
		})
	}}
}

// UpdateInvoice is PATCH /v1/invoices/{invoice_uuid} and PATCH
// /v1/invoices?data_source_uuid=&external_id= (ChartMogul's "Update an invoice"): date,
// due_date, currency and collection_method change; 200 with the invoice. The change is
// applied with the import worker's step, so the customer's index and metrics follow.
func UpdateInvoice(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var sent map[string]any
		if err := r.Decode(&sent); err != nil {
			return apigw.Response{}, err
		}
		inv, err := requestedInvoice(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if changesExternalID(sent, inv.ExternalID) {
			return apigw.Response{}, apperr.Unprocessable("external_id", "The external_id of an invoice cannot change")
		}
		rec := map[string]any{"external_id": inv.ExternalID, "customer_external_id": inv.CustomerExternalID,
			"date": timefmt.Millis(inv.Date), "currency": inv.Currency}
		if inv.DueDate != nil {
			rec["due_date"] = timefmt.Millis(*inv.DueDate)
		}
		if inv.CollectionMethod != "" {
			rec["collection_method"] = inv.CollectionMethod
		}
		for _, k := range []string{"date", "due_date", "currency", "collection_method"} {
			if v, ok := sent[k]; ok {
				rec[k] = v
			}
		}
		pl, err := parseAs("", map[string]any{"invoices": []any{rec}})
		if err != nil {
			return apigw.Response{}, unprefixed(err, "invoices[0].")
		}
		c, err := storage(d).GetCustomer(ctx, r.AccountID, inv.CustomerUUID)
		if errors.Is(err, store.ErrNotFound) {
			return apigw.Response{}, errInvoiceNotFound()
		}
		if err != nil {
			return apigw.Response{}, err
		}
		if err := applySync(ctx, d, c, inv.DataSourceUUID, inv.CustomerExternalID, imports.Part{Invoices: pl.Invoices}); err != nil {
			return apigw.Response{}, err
		}
		stored, err := storage(d).GetInvoice(ctx, r.AccountID, inv.UUID)
		if err != nil {
			return apigw.Response{}, err
		}
		if stored, err = recordEdits(ctx, d, r, inv, stored, invoiceEdit); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, invoiceWithState(stored))
	}}
}

// DeleteCustomerInvoices is DELETE /v1/data_sources/{data_source_uuid}/customers/{customer_uuid}/invoices:
// every invoice of the customer in that data source goes (with one revision of its
// index), and the customer is recomputed; 204, also when there was none.
func DeleteCustomerInvoices(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		dsUUID := r.PathParam("data_source_uuid")
		if _, err := api.DataSource(ctx, d, r.AccountID, dsUUID); err != nil {
			return apigw.Response{}, err
		}
		c, err := importCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		idx, err := storage(d).GetBillingIndex(ctx, r.AccountID, c.UUID)
		if err != nil {
			return apigw.Response{}, err
		}
		owned, err := storage(d).OwnedInvoices(ctx, idx, idx.SortedInvoiceUUIDs())
		if err != nil {
			return apigw.Response{}, err
		}
		var doomed []model.Invoice
		var records []string
		for _, inv := range owned {
			if inv.DataSourceUUID == dsUUID {
				doomed = append(doomed, inv)
				records = append(records, recordUUIDs(inv)...)
			}
		}
		if len(doomed) == 0 {
			return apigw.NoContent()
		}
		now := d.Now()
		if err := storage(d).DeleteInvoices(ctx, r.AccountID, c.UUID, doomed, now); err != nil {
			return apigw.Response{}, err
		}
		if err := storage(d).DeleteRecordLocators(ctx, r.AccountID, records); err != nil {
			return apigw.Response{}, err
		}
		job := jobs.Recompute(r.AccountID, c.UUID, "delete-invoices:"+dsUUID+":"+strconv.FormatInt(now.UnixNano(), 10))
		if err := d.Jobs.Send(ctx, job); err != nil {
			return apigw.Response{}, err
		}
		return apigw.NoContent()
	}}
}

// recordUUIDs are the uuids of an invoice's line items and transactions (their locators
// go with the invoice).
func recordUUIDs(inv model.Invoice) []string {
	out := make([]string, 0, len(inv.LineItems)+len(inv.Transactions))
	for _, li := range inv.LineItems {
		out = append(out, li.UUID)
	}
	for _, t := range inv.Transactions {
		out = append(out, t.UUID)
	}
	return out
}
