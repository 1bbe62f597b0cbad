package jsonimports

import (
	"context"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/parallel"
)

// ListJSONImports is GET /v1/data_sources/{data_source_uuid}/json_imports (the
// clients' JsonImport.all): 200 {"json_imports":[…],"cursor","has_more"}, each import
// as its retrieve shows it, in the order of their external ids. Each entry's status
// reads the import's customer entries (one Query each, in parallel).
func ListJSONImports(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		perPage, err := r.PerPage()
		if err != nil {
			return apigw.Response{}, err
		}
		ds, err := api.LiveDataSource(ctx, d, r.AccountID, r.PathParam("data_source_uuid"))
		if err != nil {
			return apigw.Response{}, inFamilyB(err)
		}
		pg, err := api.ReadCursor(d, r, api.Listing{Scope: "json-imports:" + ds.UUID})
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := storage(d).ListImports(ctx, r.AccountID, ds.UUID, perPage, pg.Start)
		if err != nil {
			return apigw.Response{}, err
		}
		progress := make([]imports.Progress, len(page.Items))
		errs := make([]error, len(page.Items))
		parallel.For(len(page.Items), api.ImportProgressConcurrency, func(i int) {
			progress[i], errs[i] = d.Imports.Progress(ctx, page.Items[i])
		})
		out := make([]jsonobj.Object, len(page.Items))
		for i, imp := range page.Items {
			if errs[i] != nil {
				return apigw.Response{}, errs[i]
			}
			out[i] = importJSON(imp, &progress[i])
		}
		return pg.Render(d, r, api.Page{Key: "json_imports", Entries: out, Next: page.Next, HasMore: page.HasMore})
	}}
}
