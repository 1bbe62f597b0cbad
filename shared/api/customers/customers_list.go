package customers

import (
	"context"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// customersPage is a page of a customers listing: entries, then on the first page (or
// page=N) the deprecated page fields around has_more and the cursor last; after a
// cursor, cursor and has_more.
func customersPage(pg api.Paging, entries any, next store.PageToken, hasMore bool, totalPages any) api.Page {
	return api.Page{Key: "entries", Entries: entries, Next: next, HasMore: hasMore, Layout: api.LegacyHasMoreThenCursor,
		Legacy:             jsonobj.Object{{Key: "current_page", Value: pg.Page}, {Key: "total_pages", Value: totalPages}},
		LegacyAfterHasMore: jsonobj.Object{{Key: "per_page", Value: pg.PerPage}, {Key: "page", Value: pg.Page}}}
}

type customerQuery struct {
	filter         store.CustomerFilter
	email          string
	withAssociated bool
}

// customerListParams are the filters of GET /v1/customers.
var customerListParams = []string{"data_source_uuid", "external_id", "status", "system", "email", "with_associated_emails"}

func parseCustomerQuery(r *apigw.Request) (customerQuery, error) {
	q := customerQuery{email: strings.TrimSpace(r.Query("email")),
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

// listing is the customers listing name with these filters.
func (q customerQuery) listing(name string, params []string) api.Listing {
	assoc := ""
	if q.withAssociated {
		assoc = "true"
	}
	return api.Listing{Scope: api.ListScope(name, map[string]string{"data_source_uuid": q.filter.DataSourceUUID,
		"external_id": q.filter.ExternalID, "status": q.filter.Status, "system": q.filter.System,
		"email": strings.ToLower(q.email), "with_associated_emails": assoc}), Params: params, Legacy: true}
}

func customerEntries(d *api.Deps, items []model.Customer) []customerJSON {
	out := make([]customerJSON, len(items))
	for i, c := range items {
		out[i] = newCustomerJSON(c, d.AppURL)
	}
	return out
}

// ListCustomers is GET /v1/customers.
func ListCustomers(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		q, err := parseCustomerQuery(r)
		if err != nil {
			return apigw.Response{}, err
		}
		pg, err := api.ReadCursor(d, r, q.listing("customers", customerListParams))
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[model.Customer], error) {
			if q.email != "" {
				return storage(d).ListCustomersByEmail(ctx, r.AccountID, q.email, q.withAssociated, q.filter, limit, start)
			}
			return storage(d).ListCustomers(ctx, r.AccountID, q.filter, limit, start)
		})
		if err != nil {
			return apigw.Response{}, err
		}
		return pg.Render(d, r, customersPage(pg, customerEntries(d, page.Items), page.Next, page.HasMore, api.TotalPages(pg, page)))
	}}
}

// SearchCustomers is GET /v1/customers/search?email=: a 404 when nothing matches.
func SearchCustomers(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		q := customerQuery{email: strings.TrimSpace(r.Query("email"))}
		pg, err := api.ReadCursor(d, r, q.listing("customers/search", []string{"email"}))
		if err != nil {
			return apigw.Response{}, err
		}
		email, err := requireEmail(r.Query("email"))
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[model.Customer], error) {
			return storage(d).ListCustomersByEmail(ctx, r.AccountID, email, false, q.filter, limit, start)
		})
		if err != nil {
			return apigw.Response{}, err
		}
		if pg.Page == 1 && len(page.Items) == 0 {
			return apigw.Response{}, apperr.NotFound("email", "Can't find any customers with email: %q", email)
		}
		return pg.Render(d, r, customersPage(pg, customerEntries(d, page.Items), page.Next, page.HasMore, nil))
	}}
}

// contactPage answers one page of contacts.
func contactPage(ctx context.Context, d *api.Deps, r *apigw.Request, f store.ContactFilter) (apigw.Response, error) {
	pg, err := api.ReadCursor(d, r, api.Listing{Scope: api.ListScope("contacts", map[string]string{"customer_uuid": f.CustomerUUID,
		"data_source_uuid": f.DataSourceUUID, "email": strings.ToLower(f.Email), "customer_external_id": f.CustomerExternalID}),
		Params: []string{"customer_uuid", "data_source_uuid", "email", "customer_external_id"}})
	if err != nil {
		return apigw.Response{}, err
	}
	page, err := storage(d).ListContacts(ctx, r.AccountID, f, pg.PerPage, pg.Start)
	if err != nil {
		return apigw.Response{}, err
	}
	return pg.Render(d, r, api.Page{Key: "entries", Entries: api.Each(page.Items, func(c model.Contact) any { return newContactJSON(c) }), Next: page.Next, HasMore: page.HasMore})
}

// ListContacts is GET /v1/contacts.
func ListContacts(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		return contactPage(ctx, d, r, store.ContactFilter{CustomerUUID: r.Query("customer_uuid"),
			DataSourceUUID: r.Query("data_source_uuid"), Email: strings.TrimSpace(r.Query("email")),
			CustomerExternalID: r.Query("customer_external_id")})
	}}
}

// ListCustomerContacts is GET /v1/customers/{customer_uuid}/contacts.
func ListCustomerContacts(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := api.LoadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		return contactPage(ctx, d, r, store.ContactFilter{CustomerUUID: c.UUID,
			DataSourceUUID: r.Query("data_source_uuid"), Email: strings.TrimSpace(r.Query("email")),
			CustomerExternalID: r.Query("customer_external_id")})
	}}
}
