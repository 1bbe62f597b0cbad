package crm

import (
	"context"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// opportunities is the CRM kind of /v1/opportunities (docs/api.md, "Objects").
var opportunities = crmKind[model.Opportunity, *model.Opportunity]{
	param: "opportunity_uuid", noun: "Opportunity",
	prepare: withMember(model.ReadOpportunity, "owner", func(v *model.Opportunity) *string { return &v.Owner }),
	render:  opportunityJSON,
	get: func(ctx context.Context, d *api.Deps, accountID, uuid string) (model.Opportunity, error) {
		return storage(d).Opportunities().Get(ctx, accountID, uuid)
	},
	create: func(ctx context.Context, d *api.Deps, o model.Opportunity) error {
		return storage(d).Opportunities().Create(ctx, o)
	},
	update: func(ctx context.Context, d *api.Deps, o model.Opportunity) error {
		return storage(d).Opportunities().Update(ctx, o)
	},
	remove: func(ctx context.Context, d *api.Deps, o model.Opportunity) error {
		return storage(d).Opportunities().Delete(ctx, o)
	},
}

// opportunityJSON is the opportunity object, keys in ChartMogul's order; custom is an
// object (a list of {key, value} only in requests).
func opportunityJSON(o model.Opportunity) jsonobj.Object {
	custom := make(jsonobj.Object, len(o.Custom))
	for i, c := range o.Custom {
		custom[i] = jsonobj.Field{Key: c.Key, Value: c.Value}
	}
	return jsonobj.Object{
		{Key: "uuid", Value: o.UUID}, {Key: "customer_uuid", Value: o.CustomerUUID}, {Key: "owner", Value: o.Owner},
		{Key: "pipeline", Value: o.Pipeline}, {Key: "pipeline_stage", Value: o.PipelineStage},
		{Key: "estimated_close_date", Value: timefmt.Date(o.EstimatedCloseDate)}, {Key: "currency", Value: o.Currency},
		{Key: "amount_in_cents", Value: o.AmountInCents}, {Key: "type", Value: o.Type},
		{Key: "forecast_category", Value: o.ForecastCategory}, {Key: "win_likelihood", Value: o.WinLikelihood},
		{Key: "custom", Value: custom},
		{Key: "created_at", Value: timefmt.Millis(o.CreatedAt)}, {Key: "updated_at", Value: timefmt.Millis(o.UpdatedAt)},
	}
}

// CreateOpportunity is POST /v1/opportunities: customer_uuid, owner (a team member),
// pipeline, pipeline_stage, estimated_close_date, currency and amount_in_cents are
// required; type, forecast_category and win_likelihood default to recurring, pipeline
// and 0.
func CreateOpportunity(d *api.Deps) apigw.Endpoint { return crmCreate(d, opportunities) }

// GetOpportunity is GET /v1/opportunities/{opportunity_uuid}.
func GetOpportunity(d *api.Deps) apigw.Endpoint { return crmGet(d, opportunities) }

// UpdateOpportunity is PATCH /v1/opportunities/{opportunity_uuid}; custom is merged.
func UpdateOpportunity(d *api.Deps) apigw.Endpoint { return crmUpdate(d, opportunities) }

// DeleteOpportunity is DELETE /v1/opportunities/{opportunity_uuid}: 200 {}.
func DeleteOpportunity(d *api.Deps) apigw.Endpoint { return crmDelete(d, opportunities) }

// opportunityFilters are the filters of GET /v1/opportunities.
var opportunityFilters = []string{"customer_uuid", "owner", "pipeline", "pipeline_stage",
	"estimated_close_date_on_or_after", "estimated_close_date_on_or_before"}

// ListOpportunities is GET /v1/opportunities: newest first, filtered by customer, owner,
// pipeline, stage and estimated close date (inclusive bounds).
func ListOpportunities(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		f := store.OpportunityFilter{CustomerUUID: r.Query("customer_uuid"), Owner: strings.TrimSpace(r.Query("owner")),
			Pipeline: r.Query("pipeline"), PipelineStage: r.Query("pipeline_stage")}
		var err error
		if f.CloseFrom, err = dateParam(r, "estimated_close_date_on_or_after"); err != nil {
			return apigw.Response{}, err
		}
		if f.CloseTo, err = dateParam(r, "estimated_close_date_on_or_before"); err != nil {
			return apigw.Response{}, err
		}
		pg, err := api.ReadCursor(d, r, api.FilteredListing(r, "opportunities", opportunityFilters))
		if err != nil {
			return apigw.Response{}, err
		}
		var ok bool
		if f.CustomerUUID, _, ok, err = recordOwner(ctx, d, r, false); err != nil {
			return apigw.Response{}, err
		}
		page := store.Page[model.Opportunity]{}
		if ok {
			if page, err = storage(d).Opportunities().List(ctx, r.AccountID, f, pg.PerPage, pg.Start); err != nil {
				return apigw.Response{}, err
			}
		}
		return pg.Render(d, r, api.Page{Key: "entries", Entries: api.Each(page.Items, func(o model.Opportunity) any { return opportunityJSON(o) }), Next: page.Next, HasMore: page.HasMore})
	}}
}

// dateParam reads an optional date query parameter as "2006-01-02" (a 400 when it is
// not a date or a timestamp).
func dateParam(r *apigw.Request, name string) (string, error) {
	raw := strings.TrimSpace(r.Query(name))
	if raw == "" {
		return "", nil
	}
	t, err := timefmt.Parse(raw)
	if err != nil {
		return "", apperr.BadRequest(name, "Invalid value for parameter %q: %q is not an ISO 8601 date", name, raw)
	}
	return timefmt.Date(t), nil
}
