package billing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// Plan groups (/v1/plan_groups): family B, except that a body that breaks a rule is
// the recorded family E 422 naming every failing field.

// planGroupPathParam is the route parameter of the single-group operations.
const planGroupPathParam = "plan_group_uuid"

// planGroupJSON is the plan group object, as recorded.
func planGroupJSON(g model.PlanGroup) jsonobj.Object {
	return jsonobj.Object{{Key: "name", Value: g.Name}, {Key: "uuid", Value: g.UUID}, {Key: "plans_count", Value: len(g.Plans)}}
}

// groupPlanJSON is a plan as a plan group lists it: the recorded key order differs
// from the plan object's.
func groupPlanJSON(p model.Plan) jsonobj.Object {
	return jsonobj.Object{{Key: "name", Value: p.Name}, {Key: "uuid", Value: p.UUID},
		{Key: "data_source_uuid", Value: p.DataSourceUUID}, {Key: "interval_count", Value: p.IntervalCount},
		{Key: "interval_unit", Value: p.IntervalUnit}, {Key: "external_id", Value: p.ExternalID}}
}

// readPlanGroup applies a create (all fields required) or update body to g: name and
// plans (plan uuids of the account, which replace the group's). Every failing field is
// reported at once (family E), with ChartMogul's messages for the blank ones.
func readPlanGroup(ctx context.Context, d *api.Deps, accountID string, body map[string]any, g *model.PlanGroup, create bool) error {
	var fails []apperr.Detail
	if v, sent := body["name"]; sent || create {
		name, ok := v.(string)
		name = strings.TrimSpace(name)
		switch {
		case v != nil && !ok:
			fails = append(fails, apperr.Detail{Param: "name", Code: "invalid", Message: "Name must be a string"})
		case name == "":
			fails = append(fails, apperr.Detail{Param: "name", Code: "blank", Message: "Name can't be blank"})
		case len([]rune(name)) > api.MaxNameLength:
			fails = append(fails, apperr.Detail{Param: "name", Code: "too_long",
				Message: "Name is too long (maximum is 255 characters)"})
		default:
			g.Name = name
		}
	}
	if v, sent := body["plans"]; sent || create {
		uuids, fail := planUUIDs(v)
		if fail == nil {
			var err error
			if g.Plans, fail, err = planRefs(ctx, d, accountID, uuids); err != nil {
				return err
			}
		}
		if fail != nil {
			fails = append(fails, *fail)
		}
	}
	if len(fails) > 0 {
		return apperr.FieldErrors(fails...)
	}
	return nil
}

// planUUIDs reads plans: a non-empty list of plan uuids, duplicates dropped.
func planUUIDs(v any) ([]string, *apperr.Detail) {
	list, ok := v.([]any)
	if v != nil && !ok {
		return nil, &apperr.Detail{Param: "plan_ids", Code: "invalid", Message: "Plan ids must be a list of plan uuids"}
	}
	if len(list) == 0 {
		return nil, &apperr.Detail{Param: "plan_ids", Code: "blank", Message: "Plan ids can't be blank"}
	}
	if len(list) > model.MaxPlanGroupPlans {
		return nil, &apperr.Detail{Param: "plan_ids", Code: "too_long",
			Message: "Plan ids can hold at most 1000 plans"}
	}
	var out []string
	for _, x := range list {
		u, ok := x.(string)
		if !ok {
			return nil, &apperr.Detail{Param: "plan_ids", Code: "invalid", Message: "Plan ids must be a list of plan uuids"}
		}
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out, nil
}

// planRefs finds the account's plans named by uuid; the first that is none is the field
// error.
func planRefs(ctx context.Context, d *api.Deps, accountID string, uuids []string) ([]model.PlanRef, *apperr.Detail, error) {
	unknown := func(u string) *apperr.Detail {
		return &apperr.Detail{Param: "plan_ids", Code: "invalid", Message: fmt.Sprintf("Plan %q does not exist", u)}
	}
	for _, u := range uuids {
		if !ids.Valid(u, ids.Plan) {
			return nil, unknown(u), nil
		}
	}
	refs, missing, err := storage(d).PlanRefs(ctx, accountID, uuids)
	switch {
	case err != nil:
		return nil, nil, err
	case len(missing) > 0:
		return nil, unknown(missing[0]), nil
	}
	return refs, nil, nil
}

// loadPlanGroup reads the plan group named by the path (family B 404 otherwise).
func loadPlanGroup(ctx context.Context, d *api.Deps, r *apigw.Request) (model.PlanGroup, error) {
	notFound := apperr.NotFound(planGroupPathParam, "Plan group not found")
	get := func(ctx context.Context, id string) (model.PlanGroup, error) {
		return storage(d).GetPlanGroup(ctx, r.AccountID, id)
	}
	return api.LoadByID(ctx, r.PathParam(planGroupPathParam), ids.PlanGroup, notFound, notFound, get)
}

// CreatePlanGroup is POST /v1/plan_groups: name and plans; 200 (not 201, recorded)
// with the group.
func CreatePlanGroup(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		body, err := api.DecodeObject(r)
		if err != nil {
			return apigw.Response{}, err
		}
		now := d.Now()
		g := model.PlanGroup{AccountID: r.AccountID, UUID: model.NewPlanGroupUUID(), CreatedAt: now, UpdatedAt: now}
		if err := readPlanGroup(ctx, d, r.AccountID, body, &g, true); err != nil {
			return apigw.Response{}, err
		}
		if err := storage(d).SavePlanGroup(ctx, g, true); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, planGroupJSON(g))
	}}
}

// GetPlanGroup is GET /v1/plan_groups/{plan_group_uuid}.
func GetPlanGroup(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		g, err := loadPlanGroup(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, planGroupJSON(g))
	}}
}

// UpdatePlanGroup is PATCH /v1/plan_groups/{plan_group_uuid}: name and/or plans (which
// replace the group's).
func UpdatePlanGroup(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		body, err := api.DecodeObject(r)
		if err != nil {
			return apigw.Response{}, err
		}
		g, err := loadPlanGroup(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := readPlanGroup(ctx, d, r.AccountID, body, &g, false); err != nil {
			return apigw.Response{}, err
		}
		g.UpdatedAt = d.Now()
		if err := storage(d).SavePlanGroup(ctx, g, false); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return apigw.Response{}, apperr.NotFound(planGroupPathParam, "Plan group not found")
			}
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, planGroupJSON(g))
	}}
}

// DeletePlanGroup is DELETE /v1/plan_groups/{plan_group_uuid}: 204; the plans stay.
func DeletePlanGroup(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		g, err := loadPlanGroup(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := storage(d).DeletePlanGroup(ctx, r.AccountID, g.UUID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return apigw.Response{}, apperr.NotFound(planGroupPathParam, "Plan group not found")
			}
			return apigw.Response{}, err
		}
		return apigw.NoContent()
	}}
}

// ListPlanGroups is GET /v1/plan_groups: newest first; the first page (or page=N) adds
// current_page and total_pages.
func ListPlanGroups(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		pg, err := api.ReadCursor(d, r, api.Listing{Scope: "plan_groups", Legacy: true})
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[model.PlanGroup], error) {
			return storage(d).ListPlanGroups(ctx, r.AccountID, limit, start)
		})
		if err != nil {
			return apigw.Response{}, err
		}
		groups := make([]jsonobj.Object, len(page.Items))
		for i, g := range page.Items {
			groups[i] = planGroupJSON(g)
		}
		counts, err := api.PageCount(pg, page, func() (int, error) { return storage(d).CountPlanGroups(ctx, r.AccountID) })
		if err != nil {
			return apigw.Response{}, err
		}
		return pg.Render(d, r, api.Page{Key: "plan_groups", Entries: groups, Legacy: counts, Next: page.Next, HasMore: page.HasMore})
	}}
}

// ListPlanGroupPlans is GET /v1/plan_groups/{plan_group_uuid}/plans: the group's plans in
// the order given (plans deleted since are left out); the first page (or page=N) adds
// current_page and total_pages.
func ListPlanGroupPlans(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		g, err := loadPlanGroup(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		pg, err := api.ReadCursor(d, r, api.Listing{Scope: "plan_groups/plans?" + g.UUID, Legacy: true})
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[model.Plan], error) {
			return storage(d).ListPlanGroupPlans(ctx, g, limit, start)
		})
		if err != nil {
			return apigw.Response{}, err
		}
		plans := make([]jsonobj.Object, len(page.Items))
		for i, p := range page.Items {
			plans[i] = groupPlanJSON(p)
		}
		counts, err := api.PageCount(pg, page, nil)
		if err != nil {
			return apigw.Response{}, err
		}
		return pg.Render(d, r, api.Page{Key: "plans", Entries: plans, Legacy: counts, Next: page.Next, HasMore: page.HasMore})
	}}
}
