package billing

import (
	"context"
	"net/url"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ListPlans is GET /v1/plans: filters data_source_uuid, external_id, system; cursor and
// per_page. Plans come in creation order. The first page also carries the deprecated
// current_page and total_pages, as ChartMogul's does.
func ListPlans(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		f := store.PlanFilter{DataSourceUUID: r.Query("data_source_uuid"), ExternalID: r.Query("external_id"),
			System: model.SystemFilter(r.Query("system"))}
		pg, err := api.ReadCursor(d, r, api.Listing{Scope: "plans?" + url.Values{"ds": {f.DataSourceUUID}, "ext": {f.ExternalID}, "sys": {f.System}}.Encode(),
			Params: []string{"data_source_uuid", "external_id", "system"}, Legacy: true})
		if err != nil {
			return apigw.Response{}, err
		}
		page := store.Page[model.Plan]{Items: []model.Plan{}}
		// A value that no plan can have answers an empty list without a query (and
		// keeps oversized strings out of key conditions).
		if plansFilterCanMatch(f) {
			page, err = api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[model.Plan], error) {
				return storage(d).ListPlans(ctx, r.AccountID, f, limit, start)
			})
			if err != nil {
				return apigw.Response{}, err
			}
		}
		plans := make([]planJSON, len(page.Items))
		for i, p := range page.Items {
			plans[i] = newPlanJSON(p)
		}
		counts, err := api.PageCount(pg, page, func() (int, error) { return storage(d).CountPlans(ctx, r.AccountID, f) })
		if err != nil {
			return apigw.Response{}, err
		}
		return pg.Render(d, r, api.Page{Key: "plans", Entries: plans, Legacy: counts, Next: page.Next, HasMore: page.HasMore})
	}}
}

func plansFilterCanMatch(f store.PlanFilter) bool {
	if f.DataSourceUUID != "" && !ids.Valid(f.DataSourceUUID, ids.DataSource) {
		return false
	}
	return len([]rune(f.ExternalID)) <= model.MaxExternalIDLen && len(f.System) <= api.MaxNameLength
}
