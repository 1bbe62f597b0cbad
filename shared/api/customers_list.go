package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

func rejectPage(r *apigw.Request) error {
	if r.HasQuery("page") {
		return apperr.BadRequest("page", "Parameter \"page\" is deprecated")
	}
	return nil
}

// pageBody renders a listing: entries, then the deprecated page fields on the first
// page (no cursor sent), then cursor and has_more.
func pageBody(first bool, entries any, cursor *string, hasMore bool, perPage int, totalPages any) jsonobj.Object {
	if !first {
		return jsonobj.Object{{Key: "entries", Value: entries}, {Key: "cursor", Value: cursor}, {Key: "has_more", Value: hasMore}}
	}
	return jsonobj.Object{
		{Key: "entries", Value: entries}, {Key: "current_page", Value: 1}, {Key: "total_pages", Value: totalPages},
		{Key: "has_more", Value: hasMore}, {Key: "per_page", Value: perPage}, {Key: "page", Value: 1},
		{Key: "cursor", Value: cursor},
	}
}

type customerQuery struct {
	filter         store.CustomerFilter
	email          string
	withAssociated bool
	perPage        int
}

func parseCustomerQuery(r *apigw.Request) (customerQuery, error) {
	if err := rejectPage(r); err != nil {
		return customerQuery{}, err
	}
	perPage, err := r.PerPage()
	if err != nil {
		return customerQuery{}, err
	}
	q := customerQuery{perPage: perPage, email: strings.TrimSpace(r.Query("email")),
		filter: store.CustomerFilter{DataSourceUUID: r.Query("data_source_uuid"), ExternalID: r.Query("external_id"),
			System: r.Query("system")}}
	switch strings.ToLower(r.Query("with_associated_emails")) {
	case "", "false", "0":
	case "true", "1":
		q.withAssociated = true
	default:
		return q, apperr.BadRequest("with_associated_emails", "with_associated_emails must be true or false")
	}
	if raw := r.Query("status"); raw != "" {
		st, ok := model.NormalizeStatus(raw)
		if !ok {
			return q, apperr.BadRequest("status", "Invalid status %q: use one of %s", raw, strings.Join(model.CustomerStatuses, ", "))
		}
		q.filter.Status = st
	}
	return q, nil
}

func (q customerQuery) scope(name string) string {
	assoc := ""
	if q.withAssociated {
		assoc = "true"
	}
	return listScope(name, map[string]string{"data_source_uuid": q.filter.DataSourceUUID,
		"external_id": q.filter.ExternalID, "status": q.filter.Status, "system": q.filter.System,
		"email": strings.ToLower(q.email), "with_associated_emails": assoc})
}

func customerEntries(d *Deps, items []model.Customer) []customerJSON {
	out := make([]customerJSON, len(items))
	for i, c := range items {
		out[i] = newCustomerJSON(c, d.AppURL)
	}
	return out
}

// totalPages is the first customers page's total_pages: 1 when everything fits, the
// exact count when the listing knows it, null otherwise.
func totalPages[T any](p store.Page[T], perPage int) any {
	switch {
	case !p.HasMore:
		return 1
	case p.TotalKnown && p.Total > 0:
		return (p.Total + perPage - 1) / perPage
	}
	return nil
}

// ListCustomers is GET /v1/customers.
func ListCustomers(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		q, err := parseCustomerQuery(r)
		if err != nil {
			return apigw.Response{}, err
		}
		pg, err := readCursor(d, r, q.scope("customers"))
		if err != nil {
			return apigw.Response{}, err
		}
		var page store.Page[model.Customer]
		if q.email != "" {
			page, err = d.Store.ListCustomersByEmail(ctx, r.AccountID, q.email, q.withAssociated, q.filter, q.perPage, pg.start)
		} else {
			page, err = d.Store.ListCustomers(ctx, r.AccountID, q.filter, q.perPage, pg.start)
		}
		if err != nil {
			return apigw.Response{}, err
		}
		cursor, err := pg.nextCursor(d, r, page.Next)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, pageBody(pg.first(), customerEntries(d, page.Items), cursor,
			page.HasMore, q.perPage, totalPages(page, q.perPage)))
	}}
}

// SearchCustomers is GET /v1/customers/search?email=: a 404 when nothing matches.
func SearchCustomers(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		if err := rejectPage(r); err != nil {
			return apigw.Response{}, err
		}
		email, err := requireEmail(r.Query("email"))
		if err != nil {
			return apigw.Response{}, err
		}
		perPage, err := r.PerPage()
		if err != nil {
			return apigw.Response{}, err
		}
		q := customerQuery{email: email, perPage: perPage}
		pg, err := readCursor(d, r, q.scope("customers/search"))
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := d.Store.ListCustomersByEmail(ctx, r.AccountID, q.email, false, q.filter, perPage, pg.start)
		if err != nil {
			return apigw.Response{}, err
		}
		if pg.first() && len(page.Items) == 0 {
			return apigw.Response{}, apperr.NotFound("email", "Can't find any customers with email: %q", email)
		}
		cursor, err := pg.nextCursor(d, r, page.Next)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, pageBody(pg.first(), customerEntries(d, page.Items), cursor,
			page.HasMore, perPage, nil))
	}}
}

// contactPage answers one page of contacts.
func contactPage(ctx context.Context, d *Deps, r *apigw.Request, f store.ContactFilter) (apigw.Response, error) {
	if err := rejectPage(r); err != nil {
		return apigw.Response{}, err
	}
	perPage, err := r.PerPage()
	if err != nil {
		return apigw.Response{}, err
	}
	pg, err := readCursor(d, r, listScope("contacts", map[string]string{"customer_uuid": f.CustomerUUID,
		"data_source_uuid": f.DataSourceUUID, "email": strings.ToLower(f.Email), "customer_external_id": f.CustomerExternalID}))
	if err != nil {
		return apigw.Response{}, err
	}
	page, err := d.Store.ListContacts(ctx, r.AccountID, f, perPage, pg.start)
	if err != nil {
		return apigw.Response{}, err
	}
	cursor, err := pg.nextCursor(d, r, page.Next)
	if err != nil {
		return apigw.Response{}, err
	}
	entries := make([]contactJSON, len(page.Items))
	for i, c := range page.Items {
		entries[i] = newContactJSON(c)
	}
	return apigw.JSON(http.StatusOK, jsonobj.Object{{Key: "entries", Value: entries},
		{Key: "cursor", Value: cursor}, {Key: "has_more", Value: page.HasMore}})
}

// ListContacts is GET /v1/contacts.
func ListContacts(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		return contactPage(ctx, d, r, store.ContactFilter{CustomerUUID: r.Query("customer_uuid"),
			DataSourceUUID: r.Query("data_source_uuid"), Email: strings.TrimSpace(r.Query("email")),
			CustomerExternalID: r.Query("customer_external_id")})
	}}
}

// ListCustomerContacts is GET /v1/customers/{customer_uuid}/contacts.
func ListCustomerContacts(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := loadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		return contactPage(ctx, d, r, store.ContactFilter{CustomerUUID: c.UUID,
			DataSourceUUID: r.Query("data_source_uuid"), Email: strings.TrimSpace(r.Query("email")),
			CustomerExternalID: r.Query("customer_external_id")})
	}}
}
