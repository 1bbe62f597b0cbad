package billing

import (
	"context"
	"errors"
	"net/http"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// UpdatePlan is PATCH /v1/plans/{plan_uuid}: name, interval_count and interval_unit;
// 202 with the plan. The interval can change only while nothing references the plan.
// external_id and data_source_uuid are accepted when unchanged (ruby echoes them).
func UpdatePlan(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var body planBody
		if err := r.Decode(&body); err != nil {
			return apigw.Response{}, err
		}
		p, err := planOf(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		upd, err := planUpdateOf(body, p)
		if err != nil {
			return apigw.Response{}, err
		}
		updated, err := storage(d).UpdatePlan(ctx, p, upd)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return apigw.Response{}, errPlanNotFound()
		case errors.Is(err, store.ErrPlanReferenced):
			param := "interval_unit"
			if upd.IntervalCount != nil && *upd.IntervalCount != p.IntervalCount {
				param = "interval_count"
			}
			return apigw.Response{}, apperr.Unprocessable(param,
				"The plan's interval cannot be changed because subscriptions or invoices use the plan.")
		case err != nil:
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusAccepted, newPlanJSON(updated))
	}}
}

// planUpdateOf validates a PATCH body against the stored plan; errors name the field
// (family B).
func planUpdateOf(body planBody, p model.Plan) (store.PlanUpdate, error) {
	var u store.PlanUpdate
	if body.Name.Set {
		name, err := model.ValidPlanName(stringOf(body.Name))
		if err != nil {
			msg := err.Error()
			if msg == model.MsgPlanNameTooLong {
				msg = "Name " + msg + "."
			}
			return u, apperr.Unprocessable("name", "%s", msg)
		}
		u.Name = &name
	}
	if body.IntervalCount.Set {
		count, err := model.ParseIntervalCount(body.IntervalCount.V)
		if err != nil {
			return u, apperr.Unprocessable("interval_count", "Interval count %s.", err.Error())
		}
		u.IntervalCount = &count
	}
	if body.IntervalUnit.Set {
		unit := stringOf(body.IntervalUnit)
		if !model.ValidIntervalUnit(unit) {
			return u, apperr.Unprocessable("interval_unit", "%s", model.MsgIntervalUnit)
		}
		u.IntervalUnit = &unit
	}
	if body.ExternalID.Present() {
		if ext, ok := externalIDOf(body.ExternalID); !ok || ext != p.ExternalID {
			return u, apperr.Unprocessable("external_id", "The external ID of a plan cannot be changed.")
		}
	}
	if body.DataSourceUUID.Present() && stringOf(body.DataSourceUUID) != p.DataSourceUUID {
		return u, apperr.Unprocessable("data_source_uuid", "The data source of a plan cannot be changed.")
	}
	return u, nil
}
