package api

import (
	"net/http"
	"net/url"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/store"
)

// paging is where a listing request starts. Every listing reads it with readCursor and
// writes its cursor with nextCursor, so the paging parameters are read in one place.
type paging struct {
	scope string          // the listing and its filters: a cursor only continues the listing that made it
	start store.PageToken // nil: the first page
}

// readCursor is the one reader of a listing's cursor: no cursor (or an empty one) is
// the first page; a cursor that this account did not get from this listing, or that
// names another account's partition, is a 400.
func readCursor(d *Deps, r *apigw.Request, scope string) (paging, error) {
	p := paging{scope: scope}
	raw := r.Query("cursor")
	if raw == "" {
		return p, nil
	}
	position, err := d.Cursors.Decode(r.AccountID, scope, raw)
	if err != nil || !store.PageToken(position).OwnedBy(r.AccountID) {
		return p, apperr.BadRequest("cursor", "Invalid cursor")
	}
	p.start = position
	return p, nil
}

// first tells whether the request asks for the first page.
func (p paging) first() bool { return p.start == nil }

// nextCursor is the one writer of cursors: the signed cursor of where the listing
// continues (a page's Next); nil when next is.
func (p paging) nextCursor(d *Deps, r *apigw.Request, next store.PageToken) (*string, error) {
	return d.Cursors.Encode(r.AccountID, p.scope, next)
}

// listScope names a listing and its filters (the non-empty ones).
func listScope(name string, filters map[string]string) string {
	v := url.Values{}
	for k, f := range filters {
		if f != "" {
			v.Set(k, f)
		}
	}
	return name + "?" + v.Encode()
}

// importRecordsPage renders a page of one customer's Import-API records: customer_uuid,
// the entries under key, on the first page the legacy current_page and total_pages
// (null when the listing does not know its size), then cursor and has_more.
func importRecordsPage[T any](d *Deps, r *apigw.Request, pg paging, perPage int, customerUUID, key string,
	entries []jsonobj.Object, page store.Page[T]) (apigw.Response, error) {
	cursor, err := pg.nextCursor(d, r, page.Next)
	if err != nil {
		return apigw.Response{}, err
	}
	body := jsonobj.Object{{Key: "customer_uuid", Value: customerUUID}, {Key: key, Value: entries}}
	if pg.first() {
		var totalPages any
		if page.TotalKnown {
			totalPages = (page.Total + perPage - 1) / perPage
		}
		body = append(body, jsonobj.Field{Key: "current_page", Value: 1}, jsonobj.Field{Key: "total_pages", Value: totalPages})
	}
	body = append(body, jsonobj.Field{Key: "cursor", Value: cursor}, jsonobj.Field{Key: "has_more", Value: page.HasMore})
	return apigw.JSON(http.StatusOK, body)
}
