package api

import (
	"context"
	"net/http"
	"net/url"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ListCustomerNotes is GET /v1/customer_notes: filters customer_uuid, type, author_email;
// cursor and per_page; newest first; no legacy page keys (as ChartMogul's).
func ListCustomerNotes(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		f := store.NoteFilter{CustomerUUID: r.Query("customer_uuid"), Type: r.Query("type"),
			AuthorEmail: r.Query("author_email")}
		if f.Type != "" && !model.ValidNoteType(f.Type) {
			return apigw.Response{}, apperr.BadRequest("type", "Invalid value for parameter \"type\": %q", f.Type)
		}
		pg, err := readCursor(d, r, listing{scope: "customer_notes?" + url.Values{"c": {f.CustomerUUID}, "t": {f.Type}, "a": {f.AuthorEmail}}.Encode(),
			params: []string{"customer_uuid", "type", "author_email"}})
		if err != nil {
			return apigw.Response{}, err
		}
		page := store.Page[model.Note]{Items: []model.Note{}}
		// An unknown customer, or another account's, simply has no notes here.
		if (f.CustomerUUID == "" || ids.Valid(f.CustomerUUID, ids.Customer)) && len(f.AuthorEmail) <= maxNameLength {
			if page, err = d.Store.ListNotes(ctx, r.AccountID, f, pg.perPage, pg.start); err != nil {
				return apigw.Response{}, err
			}
		}
		entries := make([]noteJSON, len(page.Items))
		for i, n := range page.Items {
			entries[i] = newNoteJSON(n)
		}
		next, err := pg.nextCursor(d, r, page.Next)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, jsonobj.Object{
			{Key: "entries", Value: entries}, {Key: "cursor", Value: next}, {Key: "has_more", Value: page.HasMore},
		})
	}}
}
