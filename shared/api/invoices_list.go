package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ListInvoices is GET /v1/invoices (data_source_uuid, customer_uuid, external_id,
// validation_type, cursor, per_page); invoices carry customer_uuid. A page is a
// bounded number of DynamoDB requests (store.ListInvoices), so with a selective filter
// it can come back short, with has_more.
func ListInvoices(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		perPage, err := r.PerPage()
		if err != nil {
			return apigw.Response{}, err
		}
		valid, err := validationType(r)
		if err != nil {
			return apigw.Response{}, err
		}
		f := store.InvoiceFilter{DataSourceUUID: r.Query("data_source_uuid"), ExternalID: r.Query("external_id")}
		if f.DataSourceUUID != "" {
			if _, err := dataSource(ctx, d, r.AccountID, f.DataSourceUUID); err != nil {
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
		scope := "invoices?" + f.DataSourceUUID + "&" + f.CustomerUUID + "&" + f.ExternalID + "&" + r.Query("validation_type")
		after, err := invoiceCursor(d, r, scope)
		if err != nil {
			return apigw.Response{}, err
		}
		page := store.InvoicePage{TotalKnown: true}
		if valid {
			if page, err = d.Store.ListInvoices(ctx, r.AccountID, f, perPage, after); err != nil {
				return apigw.Response{}, err
			}
		}
		out := make([]jsonobj.Object, len(page.Invoices))
		for i, inv := range page.Invoices {
			out[i] = invoiceJSON(inv, true)
		}
		cur, err := d.Cursors.Encode(r.AccountID, scope, positionKey(page.Next))
		if err != nil {
			return apigw.Response{}, err
		}
		// No legacy page keys, not even on the first page (recorded), unlike the
		// customer-scoped listing.
		return apigw.JSON(http.StatusOK, jsonobj.Object{{Key: "invoices", Value: out},
			{Key: "cursor", Value: cur}, {Key: "has_more", Value: page.HasMore}})
	}}
}

// invoiceTotalPages is the legacy total_pages: null when the count is not known.
func invoiceTotalPages(p store.InvoicePage, perPage int) any {
	if !p.TotalKnown {
		return nil
	}
	return (p.Total + perPage - 1) / perPage
}

// positionKey is the cursor content of a listing position: the customer listing key
// ("c." attributes), the customer and the last invoice read.
func positionKey(at *store.InvoicePosition) map[string]types.AttributeValue {
	if at == nil {
		return nil
	}
	k := map[string]types.AttributeValue{"cu": sv(at.CustomerUUID), "after": sv(at.UUID),
		"d": sv(strconv.FormatInt(at.Date, 10))}
	for name, v := range at.CustomerKey {
		k["c."+name] = v
	}
	return k
}

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// invoiceCursor reads the position a cursor continues after (nil: the first page).
func invoiceCursor(d *app.Deps, r *apigw.Request, scope string) (*store.InvoicePosition, error) {
	raw := r.Query("cursor")
	if raw == "" {
		return nil, nil
	}
	bad := apperr.BadRequest("cursor", "Invalid cursor")
	k, err := d.Cursors.Decode(r.AccountID, scope, raw)
	if err != nil {
		return nil, bad
	}
	at := &store.InvoicePosition{CustomerUUID: attrString(k["cu"]), UUID: attrString(k["after"])}
	if at.Date, err = strconv.ParseInt(attrString(k["d"]), 10, 64); err != nil {
		return nil, bad
	}
	for name, v := range k {
		if rest, ok := strings.CutPrefix(name, "c."); ok {
			if at.CustomerKey == nil {
				at.CustomerKey = map[string]types.AttributeValue{}
			}
			at.CustomerKey[rest] = v
		}
	}
	return at, nil
}

// customerInvoices is one page of a customer's invoices for the Import-API view.
func customerInvoices(ctx context.Context, d *app.Deps, r *apigw.Request, c model.Customer, scope string) (store.InvoicePage, error) {
	perPage, err := r.PerPage()
	if err != nil {
		return store.InvoicePage{}, err
	}
	valid, err := validationType(r)
	if err != nil {
		return store.InvoicePage{}, err
	}
	after, err := invoiceCursor(d, r, scope)
	if err != nil || !valid {
		return store.InvoicePage{TotalKnown: true}, err
	}
	return d.Store.ListInvoices(ctx, r.AccountID, store.InvoiceFilter{CustomerUUID: c.UUID}, perPage, after)
}
