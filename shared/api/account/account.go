package account

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
)

// GetAccount is GET /v1/account[?include=...].
func GetAccount(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var include []string
		if raw := r.Query("include"); raw != "" {
			for name := range strings.SplitSeq(raw, ",") {
				name = strings.TrimSpace(name)
				if !slices.Contains(model.AccountIncludes, name) {
					return apigw.Response{}, apperr.BadRequest("include", "Invalid include parameter: %s", name)
				}
				include = append(include, name)
			}
		}
		acc, err := storage(d).GetAccount(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, accountJSON(acc, include))
	}}
}

func accountJSON(a model.Account, include []string) jsonobj.Object {
	obj := jsonobj.Object{
		{Key: "id", Value: a.ID},
		{Key: "name", Value: a.Name},
		{Key: "currency", Value: a.Currency},
		{Key: "time_zone", Value: a.TimeZone},
		{Key: "week_start_on", Value: a.WeekStartOn},
	}
	settings := map[string]any{
		"churn_recognition":                   a.Settings.ChurnRecognition,
		"churn_when_zero_mrr":                 a.Settings.ChurnWhenZeroMRR,
		"auto_churn_subscription":             a.Settings.AutoChurnSubscription,
		"refund_handling":                     a.Settings.RefundHandling,
		"proximate_movement_reclassification": a.Settings.ProximateMovementReclassification,
	}
	for _, name := range model.AccountIncludes {
		if slices.Contains(include, name) {
			obj = append(obj, jsonobj.Field{Key: name, Value: settings[name]})
		}
	}
	return obj
}
