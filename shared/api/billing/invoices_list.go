package billing

import (
	"context"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ListInvoices is GET /v1/invoices (data_source_uuid, customer_uuid, external_id,
// validation_type, cursor, per_page); invoices carry customer_uuid. A page is a
// bounded number of DynamoDB requests (store.ListInvoices), so with a selective filter
// it can come back short, with has_more.
func ListInvoices(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		valid, err := validationType(r)
		if err != nil {
			return apigw.Response{}, err
		}
		view, err := invoiceViewOf(r, true)
		if err != nil {
			return apigw.Response{}, err
		}
		f := store.InvoiceFilter{DataSourceUUID: r.Query("data_source_uuid"), ExternalID: r.Query("external_id")}
		if f.DataSourceUUID != "" {
			if _, err := api.DataSource(ctx, d, r.AccountID, f.DataSourceUUID); err != nil {
				return apigw.Response{}, err
			}
		}
		if cu := r.Query("customer_uuid"); cu != "" {
			c, err := importCustomer(ctx, d, r.AccountID, cu)
			if err != nil {
				return apigw.Response{}, err
			}
			f.CustomerUUID = c.UUID
		}
		pg, err := api.ReadCursor(d, r, api.Listing{Scope: "invoices?" + f.DataSourceUUID + "&" + f.CustomerUUID + "&" + f.ExternalID + "&" + r.Query("validation_type"),
			Params: []string{"data_source_uuid", "customer_uuid", "external_id", "validation_type"}})
		if err != nil {
			return apigw.Response{}, err
		}
		page := store.Page[model.Invoice]{TotalKnown: true}
		if valid {
			if page, err = storage(d).ListInvoices(ctx, r.AccountID, f, pg.PerPage, pg.Start); err != nil {
				return apigw.Response{}, err
			}
		}
		out := []jsonobj.Object{}
		for _, inv := range page.Items {
			if view.shows(inv) {
				out = append(out, view.render(inv))
			}
		}
		// No legacy page keys, not even on the first page (recorded), unlike the
		// customer-scoped listing.
		return pg.Render(d, r, api.Page{Key: "invoices", Entries: out, Next: page.Next, HasMore: page.HasMore})
	}}
}

// customerInvoices is one page of a customer's invoices for the Import-API view.
func customerInvoices(ctx context.Context, d *api.Deps, r *apigw.Request, c model.Customer, scope string) (
	api.Paging, store.Page[model.Invoice], error) {
	none := store.Page[model.Invoice]{TotalKnown: true}
	pg, err := api.ReadCursor(d, r, api.Listing{Scope: scope, Params: []string{"validation_type"}, Legacy: true})
	if err != nil {
		return pg, none, err
	}
	valid, err := validationType(r)
	if err != nil || !valid {
		return pg, none, err
	}
	p, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[model.Invoice], error) {
		return storage(d).ListInvoices(ctx, r.AccountID, store.InvoiceFilter{CustomerUUID: c.UUID}, limit, start)
	})
	return pg, p, err
}
