package crm

import (
	"context"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ListCustomerNotes is GET /v1/customer_notes: filters customer_uuid, type, author_email;
// cursor and per_page; newest first; no legacy page keys (as ChartMogul's).
func ListCustomerNotes(d *api.Deps) apigw.Endpoint { return listNotes(d, customerNotes) }

// ListNotes is GET /v1/notes, as ListCustomerNotes. On both, contact_uuid lists the notes
// made for one contact.
func ListNotes(d *api.Deps) apigw.Endpoint { return listNotes(d, entityNotes) }

// noteFilters are the filters of both note listings.
var noteFilters = []string{"customer_uuid", "type", "author_email", "contact_uuid"}

func listNotes(d *api.Deps, k crmKind[model.Note, *model.Note]) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		f := store.NoteFilter{CustomerUUID: r.Query("customer_uuid"), Type: r.Query("type"),
			AuthorEmail: r.Query("author_email")}
		if f.Type != "" && !model.ValidNoteType(f.Type) {
			return apigw.Response{}, apperr.BadRequest("type", "Invalid value for parameter \"type\": %q", f.Type)
		}
		pg, err := api.ReadCursor(d, r, api.FilteredListing(r, "notes", noteFilters))
		if err != nil {
			return apigw.Response{}, err
		}
		var ok bool
		if f.CustomerUUID, f.ContactUUID, ok, err = recordOwner(ctx, d, r, true); err != nil {
			return apigw.Response{}, err
		}
		page := store.Page[model.Note]{}
		if ok && len(f.AuthorEmail) <= api.MaxNameLength {
			if page, err = storage(d).ListNotes(ctx, r.AccountID, f, pg.PerPage, pg.Start); err != nil {
				return apigw.Response{}, err
			}
		}
		return pg.Render(d, r, api.Page{Key: "entries", Entries: api.Each(page.Items, func(n model.Note) any { return k.render(n) }), Next: page.Next, HasMore: page.HasMore})
	}}
}
