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

// invoiceWalk lists invoices customer by customer (in the customer listing's order)
// and, within a customer, by date then uuid: invoices have no account-wide index, as
// one would double their write cost. The cursor holds the customer listing's start
// key ("c." attributes), the customer and the last invoice.
type invoiceWalk struct {
	d        *app.Deps
	r        *apigw.Request
	filter   store.CustomerFilter
	only     *model.Customer // customer_uuid given
	dsUUID   string
	external string
	perPage  int
}

type walkedInvoice struct {
	inv       model.Invoice
	pageStart map[string]types.AttributeValue
}

func (w invoiceWalk) customers(ctx context.Context, start map[string]types.AttributeValue) (store.Page[model.Customer], error) {
	if w.only != nil {
		return store.Page[model.Customer]{Items: []model.Customer{*w.only}}, nil
	}
	return w.d.Store.ListCustomers(ctx, w.r.AccountID, w.filter, 50, start)
}

// run collects up to perPage+1 invoices after the cursor; with count (the first page)
// it goes on counting every matching invoice.
func (w invoiceWalk) run(ctx context.Context, start map[string]types.AttributeValue, cu, afterUUID string, afterDate int64, count bool) ([]walkedInvoice, int, error) {
	var got []walkedInvoice
	total := 0
	reached := cu == ""
	for {
		page, err := w.customers(ctx, start)
		if err != nil {
			return nil, 0, err
		}
		if !reached && !containsCustomer(page.Items, cu) {
			reached = true // the cursor's customer is gone: go on from this page
		}
		for _, c := range page.Items {
			if !reached {
				if c.UUID != cu {
					continue
				}
				reached = true
			}
			idx, err := w.d.Store.GetBillingIndex(ctx, w.r.AccountID, c.UUID)
			if err != nil {
				return nil, 0, err
			}
			uuids := idx.SortedInvoiceUUIDs()
			if c.UUID == cu && afterUUID != "" {
				uuids = trimBefore(idx, uuids, afterDate, afterUUID)
			}
			if len(got) > w.perPage && !count {
				return got, total, nil
			}
			invs, err := w.d.Store.OwnedInvoices(ctx, idx, uuids)
			if err != nil {
				return nil, 0, err
			}
			for _, inv := range invs {
				if (w.dsUUID != "" && inv.DataSourceUUID != w.dsUUID) || (w.external != "" && inv.ExternalID != w.external) {
					continue
				}
				total++
				if len(got) <= w.perPage {
					got = append(got, walkedInvoice{inv: inv, pageStart: start})
				}
			}
		}
		if !page.HasMore || (len(got) > w.perPage && !count) {
			return got, total, nil
		}
		start = page.Last
	}
}

func containsCustomer(cs []model.Customer, uuid string) bool {
	for _, c := range cs {
		if c.UUID == uuid {
			return true
		}
	}
	return false
}

func trimBefore(idx store.BillingIndex, uuids []string, afterDate int64, afterUUID string) []string {
	for i, u := range uuids {
		if dt := idx.Invoices[u]; dt > afterDate || (dt == afterDate && u > afterUUID) {
			return uuids[i:]
		}
	}
	return nil
}

// ListInvoices is GET /v1/invoices (data_source_uuid, customer_uuid, external_id,
// validation_type, cursor, per_page); invoices carry customer_uuid, and the first
// page the legacy current_page and total_pages.
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
		w := invoiceWalk{d: d, r: r, perPage: perPage, dsUUID: r.Query("data_source_uuid"), external: r.Query("external_id")}
		if w.dsUUID != "" {
			if _, err := dataSource(ctx, d, r.AccountID, w.dsUUID); err != nil {
				return apigw.Response{}, err
			}
			w.filter.DataSourceUUID = w.dsUUID
		}
		if cu := r.Query("customer_uuid"); cu != "" {
			c, err := importCustomer(ctx, d, r.AccountID, cu)
			if err != nil {
				return apigw.Response{}, err
			}
			w.only = &c
		}
		scope := "invoices?" + r.Query("data_source_uuid") + "&" + r.Query("customer_uuid") + "&" + r.Query("external_id") + "&" + r.Query("validation_type")
		start, cu, afterUUID, afterDate, err := invoiceCursor(d, r, scope)
		if err != nil {
			return apigw.Response{}, err
		}
		first := r.Query("cursor") == ""
		var got []walkedInvoice
		total := 0
		if valid {
			if got, total, err = w.run(ctx, start, cu, afterUUID, afterDate, first); err != nil {
				return apigw.Response{}, err
			}
		}
		hasMore := len(got) > perPage
		got = got[:min(perPage, len(got))]
		out := make([]jsonobj.Object, len(got))
		var next map[string]types.AttributeValue
		for i, g := range got {
			out[i] = invoiceJSON(g.inv, true)
			next = map[string]types.AttributeValue{"cu": sv(g.inv.CustomerUUID), "after": sv(g.inv.UUID),
				"d": sv(strconv.FormatInt(g.inv.Date.Unix(), 10))}
			for k, v := range g.pageStart {
				next["c."+k] = v
			}
		}
		cur, err := d.Cursors.Encode(r.AccountID, scope, next)
		if err != nil {
			return apigw.Response{}, err
		}
		body := jsonobj.Object{{Key: "invoices", Value: out}}
		if first {
			body = append(body, jsonobj.Field{Key: "current_page", Value: 1},
				jsonobj.Field{Key: "total_pages", Value: (total + perPage - 1) / perPage})
		}
		body = append(body, jsonobj.Field{Key: "cursor", Value: cur}, jsonobj.Field{Key: "has_more", Value: hasMore})
		return apigw.JSON(http.StatusOK, body)
	}}
}

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func invoiceCursor(d *app.Deps, r *apigw.Request, scope string) (map[string]types.AttributeValue, string, string, int64, error) {
	raw := r.Query("cursor")
	if raw == "" {
		return nil, "", "", 0, nil
	}
	bad := apperr.BadRequest("cursor", "Invalid cursor")
	k, err := d.Cursors.Decode(r.AccountID, scope, raw)
	if err != nil {
		return nil, "", "", 0, bad
	}
	var start map[string]types.AttributeValue
	for name, v := range k {
		if rest, ok := strings.CutPrefix(name, "c."); ok {
			if start == nil {
				start = map[string]types.AttributeValue{}
			}
			start[rest] = v
		}
	}
	afterDate, err := strconv.ParseInt(attrString(k["d"]), 10, 64)
	if err != nil || attrString(k["cu"]) == "" || attrString(k["after"]) == "" {
		return nil, "", "", 0, bad
	}
	return start, attrString(k["cu"]), attrString(k["after"]), afterDate, nil
}
