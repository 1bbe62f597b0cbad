package billing

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
	"github.com/subsight/subsight/shared/store"
)

// planJSON is the plan object, keys in ChartMogul's order.
type planJSON struct {
	ExternalID     string `json:"external_id"`
	Name           string `json:"name"`
	IntervalCount  int    `json:"interval_count"`
	IntervalUnit   string `json:"interval_unit"`
	DataSourceUUID string `json:"data_source_uuid"`
	UUID           string `json:"uuid"`
}

func newPlanJSON(p model.Plan) planJSON {
	return planJSON{ExternalID: p.ExternalID, Name: p.Name, IntervalCount: p.IntervalCount,
		IntervalUnit: p.IntervalUnit, DataSourceUUID: p.DataSourceUUID, UUID: p.UUID}
}

// planPathParam is the route parameter of the single-plan operations.
const planPathParam = "plan_uuid"

// planBody is what create and update accept. Values are decoded loosely so that a
// value of the wrong JSON type is a field error, not a decoding error.
type planBody struct {
	DataSourceUUID optional.Value[any] `json:"data_source_uuid"`
	Name           optional.Value[any] `json:"name"`
	IntervalCount  optional.Value[any] `json:"interval_count"`
	IntervalUnit   optional.Value[any] `json:"interval_unit"`
	ExternalID     optional.Value[any] `json:"external_id"`
}

// CreatePlan is POST /v1/plans.
func CreatePlan(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: createPlan(d)}
}

// ImportPlan is POST /v1/import/plans, the legacy Import-API route: the same
// operation as POST /v1/plans.
func ImportPlan(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: createPlan(d)}
}

func createPlan(d *api.Deps) apigw.Handler {
	return func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var body planBody
		if err := r.Decode(&body); err != nil {
			return apigw.Response{}, err
		}
		// Every failing field is reported at once, in ChartMogul's family C.
		fields := map[string]string{}
		name, err := model.ValidPlanName(stringOf(body.Name))
		if err != nil {
			fields["name"] = err.Error()
		}
		count, err := model.ParseIntervalCount(body.IntervalCount.V)
		if err != nil {
			fields["interval_count"] = err.Error()
		}
		unit := stringOf(body.IntervalUnit)
		if !model.ValidIntervalUnit(unit) {
			fields["interval_unit"] = model.MsgIntervalUnit
		}
		externalID, ok := externalIDOf(body.ExternalID)
		if !ok {
			fields["external_id"] = "is invalid"
		} else if len([]rune(externalID)) > model.MaxExternalIDLen {
			fields["external_id"] = model.MsgExternalIDTooLong
		}
		ds, err := api.LiveDataSource(ctx, d, r.AccountID, stringOf(body.DataSourceUUID))
		if err != nil {
			if _, isClient := apperr.As(err); !isClient {
				return apigw.Response{}, err
			}
			fields["data_source_uuid"] = model.MsgPlanDataSource
		}
		if len(fields) > 0 {
			return apigw.Response{}, apperr.Validation(fields)
		}
		p := model.Plan{AccountID: r.AccountID, UUID: model.NewPlanUUID(), DataSourceUUID: ds.UUID,
			System: ds.System, ExternalID: externalID, Name: name, IntervalCount: count, IntervalUnit: unit,
			CreatedAt: d.Now()}
		if p.ExternalID == "" {
			p.ExternalID = model.DefaultPlanExternalID(p.UUID)
		}
		switch err := storage(d).CreatePlan(ctx, p); {
		case errors.Is(err, store.ErrConflict):
			return apigw.Response{}, apperr.Validation(map[string]string{"external_id": model.MsgPlanExternalIDUsed})
		case errors.Is(err, store.ErrDataSourceNotLive):
			return apigw.Response{}, apperr.Validation(map[string]string{"data_source_uuid": model.MsgPlanDataSource})
		case err != nil:
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusCreated, newPlanJSON(p))
	}
}

// stringOf returns a body value that is a JSON string, else "".
func stringOf(v optional.Value[any]) string {
	s, _ := v.V.(string)
	return s
}

// externalIDOf reads an optional external id: absent, null and "" mean none; a number
// is taken as its exact literal text, digit for digit (ChartMogul's Rails API coerces
// numbers to text; docs/api.md, "Numbers").
func externalIDOf(v optional.Value[any]) (string, bool) {
	switch x := v.V.(type) {
	case nil:
		return "", true
	case string:
		return strings.TrimSpace(x), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// GetPlan is GET /v1/plans/{plan_uuid}.
func GetPlan(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		p, err := planOf(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, newPlanJSON(p))
	}}
}

// DeletePlan is DELETE /v1/plans/{plan_uuid}; a plan in use cannot be deleted.
func DeletePlan(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		p, err := planOf(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		switch err := storage(d).DeletePlan(ctx, p); {
		case errors.Is(err, store.ErrNotFound):
			return apigw.Response{}, errPlanNotFound()
		case errors.Is(err, store.ErrPlanReferenced):
			return apigw.Response{}, apperr.Unprocessable(planPathParam,
				"The plan cannot be deleted because subscriptions or invoices use it.")
		case err != nil:
			return apigw.Response{}, err
		}
		return apigw.NoContent()
	}}
}

// errPlanNotFound is ChartMogul's 404 for plans (family B).
func errPlanNotFound() *apperr.Error { return apperr.NotFound(planPathParam, "Plan not found") }

// planOf reads the plan named by the path, as a 404 when it is not the account's.
func planOf(ctx context.Context, d *api.Deps, r *apigw.Request) (model.Plan, error) {
	uuid := r.PathParam(planPathParam)
	get := func(ctx context.Context, id string) (model.Plan, error) {
		return storage(d).GetPlan(ctx, r.AccountID, id)
	}
	return api.LoadByID(ctx, uuid, ids.Plan, errPlanNotFound(), errPlanNotFound(), get)
}
