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

// ListPlans is GET /v1/plans: filters data_source_uuid, external_id, system; cursor and
// per_page. Plans come in creation order. The first page also carries the deprecated
// current_page and total_pages, as ChartMogul's does.
func ListPlans(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		f := store.PlanFilter{DataSourceUUID: r.Query("data_source_uuid"), ExternalID: r.Query("external_id"),
			System: model.SystemFilter(r.Query("system"))}
		pg, err := readCursor(d, r, listing{scope: "plans?" + url.Values{"ds": {f.DataSourceUUID}, "ext": {f.ExternalID}, "sys": {f.System}}.Encode(),
			params: []string{"data_source_uuid", "external_id", "system"}, legacy: true})
		if err != nil {
			return apigw.Response{}, err
		}
		page := store.Page[model.Plan]{Items: []model.Plan{}}
		// A value that no plan can have answers an empty list without a query (and
		// keeps oversized strings out of key conditions).
		if plansFilterCanMatch(f) {
			page, err = readPage(pg, func(limit int, start store.PageToken) (store.Page[model.Plan], error) {
				return d.Store.ListPlans(ctx, r.AccountID, f, limit, start)
			})
			if err != nil {
				return apigw.Response{}, err
			}
		}
		plans := make([]planJSON, len(page.Items))
		for i, p := range page.Items {
			plans[i] = newPlanJSON(p)
		}
		obj := jsonobj.Object{{Key: "plans", Value: plans}}
		if pg.legacy() {
			total := pg.skipped() + len(plans)
			if page.HasMore {
				if total, err = d.Store.CountPlans(ctx, r.AccountID, f); err != nil {
					return apigw.Response{}, err
				}
			} else if page.TotalKnown {
				total = page.Total
			}
			obj = append(obj, jsonobj.Field{Key: "current_page", Value: pg.page},
				jsonobj.Field{Key: "total_pages", Value: (total + pg.perPage - 1) / pg.perPage})
		}
		next, err := pg.nextCursor(d, r, page.Next)
		if err != nil {
			return apigw.Response{}, err
		}
		obj = append(obj, jsonobj.Field{Key: "cursor", Value: next}, jsonobj.Field{Key: "has_more", Value: page.HasMore})
		return apigw.JSON(http.StatusOK, obj)
	}}
}

func plansFilterCanMatch(f store.PlanFilter) bool {
	if f.DataSourceUUID != "" && !ids.Valid(f.DataSourceUUID, ids.DataSource) {
		return false
	}
	return len([]rune(f.ExternalID)) <= model.MaxExternalIDLen && len(f.System) <= maxNameLength
}
