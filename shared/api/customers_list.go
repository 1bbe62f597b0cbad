package api

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// listScope names a listing and its filters, so that a cursor only continues the
// listing that made it.
func listScope(name string, filters map[string]string) string {
	v := url.Values{}
	for k, f := range filters {
		if f != "" {
			v.Set(k, f)
		}
	}
	return name + "?" + v.Encode()
}

// startKey decodes the request's cursor for scope; nil without a cursor.
func startKey(d *app.Deps, r *apigw.Request, scope string) (map[string]types.AttributeValue, error) {
	raw := r.Query("cursor")
	if !r.HasQuery("cursor") || raw == "" {
		return nil, nil
	}
	k, err := d.Cursors.Decode(r.AccountID, scope, raw)
	if err != nil {
		return nil, apperr.BadRequest("cursor", "Invalid cursor")
	}
	return k, nil
}

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

// matches applies the listing filters to a customer found by e-mail.
func (f customerFilter) matches(c model.Customer) bool {
	return (f.ExternalID == "" || c.ExternalID == f.ExternalID) &&
		(f.Status == "" || c.Status == f.Status) &&
		(f.DataSourceUUID == "" || slices.Contains(c.DataSourceUUIDs, f.DataSourceUUID)) &&
		(f.System == "" || (f.System == model.BillingSystemCustom && c.BillingSystemType == f.System) || slices.Contains(c.Systems, f.System))
}

type customerFilter store.CustomerFilter

// emailPage pages, in id order, the customers found by e-mail; the cursor carries
// the sort key of the last customer returned.
func emailPage(ctx context.Context, d *app.Deps, accountID string, q customerQuery, start map[string]types.AttributeValue) (store.Page[model.Customer], int, error) {
	all, err := d.Store.CustomersByEmail(ctx, accountID, q.email, q.withAssociated)
	if err != nil {
		return store.Page[model.Customer]{}, 0, err
	}
	after := ""
	if s, ok := start[keys.GSI1SK].(*types.AttributeValueMemberS); ok {
		after = s.Value
	}
	var matched []model.Customer
	for _, c := range all {
		if customerFilter(q.filter).matches(c) && keys.CustomerOrder(c.ID) > after {
			matched = append(matched, c)
		}
	}
	p := store.Page[model.Customer]{Items: matched, HasMore: len(matched) > q.perPage}
	if p.HasMore {
		p.Items = matched[:q.perPage]
	}
	if n := len(p.Items); n > 0 {
		p.LastKey = map[string]types.AttributeValue{keys.GSI1SK: &types.AttributeValueMemberS{Value: keys.CustomerOrder(p.Items[n-1].ID)}}
	}
	return p, len(matched), nil
}

func customerEntries(d *app.Deps, items []model.Customer) []customerJSON {
	out := make([]customerJSON, len(items))
	for i, c := range items {
		out[i] = newCustomerJSON(c, d.Config.AppURL)
	}
	return out
}

func totalPages(hasMore bool, total, perPage int) any {
	switch {
	case !hasMore:
		return 1
	case total > 0:
		return (total + perPage - 1) / perPage
	}
	return nil
}

// ListCustomers is GET /v1/customers.
func ListCustomers(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		q, err := parseCustomerQuery(r)
		if err != nil {
			return apigw.Response{}, err
		}
		scope := q.scope("customers")
		start, err := startKey(d, r, scope)
		if err != nil {
			return apigw.Response{}, err
		}
		var page store.Page[model.Customer]
		total := 0
		if q.email != "" {
			page, total, err = emailPage(ctx, d, r.AccountID, q, start)
		} else {
			page, err = d.Store.ListCustomers(ctx, r.AccountID, q.filter, q.perPage, start)
		}
		if err != nil {
			return apigw.Response{}, err
		}
		cursor, err := d.Cursors.Encode(r.AccountID, scope, page.LastKey)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, pageBody(start == nil, customerEntries(d, page.Items), cursor,
			page.HasMore, q.perPage, totalPages(page.HasMore, total, q.perPage)))
	}}
}

// SearchCustomers is GET /v1/customers/search?email=: a 404 when nothing matches.
func SearchCustomers(d *app.Deps) apigw.Endpoint {
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
		scope := q.scope("customers/search")
		start, err := startKey(d, r, scope)
		if err != nil {
			return apigw.Response{}, err
		}
		page, _, err := emailPage(ctx, d, r.AccountID, q, start)
		if err != nil {
			return apigw.Response{}, err
		}
		if start == nil && len(page.Items) == 0 {
			return apigw.Response{}, apperr.NotFound("email", "Can't find any customers with email: %q", email)
		}
		cursor, err := d.Cursors.Encode(r.AccountID, scope, page.LastKey)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, pageBody(start == nil, customerEntries(d, page.Items), cursor,
			page.HasMore, perPage, nil))
	}}
}

// contactPage answers one page of contacts.
func contactPage(ctx context.Context, d *app.Deps, r *apigw.Request, f store.ContactFilter) (apigw.Response, error) {
	if err := rejectPage(r); err != nil {
		return apigw.Response{}, err
	}
	perPage, err := r.PerPage()
	if err != nil {
		return apigw.Response{}, err
	}
	scope := listScope("contacts", map[string]string{"customer_uuid": f.CustomerUUID,
		"data_source_uuid": f.DataSourceUUID, "email": strings.ToLower(f.Email), "customer_external_id": f.CustomerExternalID})
	start, err := startKey(d, r, scope)
	if err != nil {
		return apigw.Response{}, err
	}
	page, err := d.Store.ListContacts(ctx, r.AccountID, f, perPage, start)
	if err != nil {
		return apigw.Response{}, err
	}
	cursor, err := d.Cursors.Encode(r.AccountID, scope, page.LastKey)
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
func ListContacts(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		return contactPage(ctx, d, r, store.ContactFilter{CustomerUUID: r.Query("customer_uuid"),
			DataSourceUUID: r.Query("data_source_uuid"), Email: strings.TrimSpace(r.Query("email")),
			CustomerExternalID: r.Query("customer_external_id")})
	}}
}

// ListCustomerContacts is GET /v1/customers/{customer_uuid}/contacts.
func ListCustomerContacts(d *app.Deps) apigw.Endpoint {
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
