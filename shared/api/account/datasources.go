package account

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
	"github.com/subsight/subsight/shared/timefmt"
)

func newDataSourceJSON(ds model.DataSource) jsonobj.Object {
	return jsonobj.Object{{Key: "uuid", Value: ds.UUID}, {Key: "name", Value: ds.Name}, {Key: "system", Value: ds.System},
		{Key: "created_at", Value: timefmt.Millis(ds.CreatedAt)}, {Key: "status", Value: ds.Status}}
}

// CreateDataSource is POST /v1/data_sources.
func CreateDataSource(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var body struct {
			Name optional.Value[string] `json:"name"`
		}
		if err := r.Decode(&body); err != nil {
			return apigw.Response{}, err
		}
		if !body.Name.Set {
			return apigw.Response{}, apperr.MissingParam("name").In(apperr.FamilyA)
		}
		name := strings.TrimSpace(body.Name.V)
		if body.Name.Null || name == "" {
			return apigw.Response{}, apperr.Validation(map[string]string{"name": "A name is required for each data source."})
		}
		if len([]rune(name)) > api.MaxNameLength {
			return apigw.Response{}, apperr.Validation(map[string]string{"name": "Name is too long (maximum is 255 characters)."})
		}
		ds := model.NewDataSource(r.AccountID, name, d.Now())
		if err := storage(d).CreateDataSource(ctx, ds); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusCreated, newDataSourceJSON(ds))
	}}
}

// ListDataSources is GET /v1/data_sources (filters name and system; no pagination, as
// in ChartMogul: an account has a handful of sources).
func ListDataSources(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		if err := api.NoPaging(r); err != nil {
			return apigw.Response{}, err
		}
		flags, err := dataSourceFlagsOf(r)
		if err != nil {
			return apigw.Response{}, err
		}
		all, err := storage(d).ListDataSources(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		name, system := r.Query("name"), r.Query("system")
		shown := []model.DataSource{}
		for _, ds := range all {
			if ds.Status == model.DataSourceDeleting ||
				(name != "" && ds.Name != name) || (system != "" && ds.System != system) {
				continue
			}
			shown = append(shown, ds)
		}
		out, err := renderDataSources(ctx, d, r.AccountID, flags, shown)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, map[string]any{"data_sources": out})
	}}
}

// GetDataSource is GET /v1/data_sources/{uuid}.
func GetDataSource(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		flags, err := dataSourceFlagsOf(r)
		if err != nil {
			return apigw.Response{}, err
		}
		ds, err := api.LiveDataSource(ctx, d, r.AccountID, r.PathParam("uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		out, err := renderDataSources(ctx, d, r.AccountID, flags, []model.DataSource{ds})
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, out[0])
	}}
}

// DeleteDataSource is DELETE /v1/data_sources/{uuid}: the source disappears at once,
// with its Stripe connection, and its data is purged by the jobs worker.
func DeleteDataSource(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("uuid")
		ds, err := api.DataSource(ctx, d, r.AccountID, uuid)
		if err != nil {
			return apigw.Response{}, err
		}
		// Hide the source first, then queue the purge. If the send fails the client
		// retries, and a DELETE of a source already being deleted queues the purge
		// again (the job is idempotent and deduplicated) instead of answering 404.
		if ds.Status != model.DataSourceDeleting {
			if err := storage(d).MarkDataSourceDeleting(ctx, r.AccountID, uuid); err != nil {
				return apigw.Response{}, err
			}
		}
		// Its Stripe connection goes now, not at the purge: no delivery is taken for a
		// source that is being deleted.
		if err := storage(d).DeleteStripeConnection(ctx, r.AccountID, uuid); err != nil {
			return apigw.Response{}, err
		}
		if err := d.Jobs.Send(ctx, jobs.Purge(r.AccountID, uuid)); err != nil {
			return apigw.Response{}, err
		}
		return apigw.NoContent()
	}}
}

// EmptyDataSource is DELETE /v1/data_sources/{uuid}/all (chartmogul-go's
// EmptyDataSource): what was imported into the source goes, customers included, and
// the source stays. The jobs worker does the deleting, as for a deleted source.
func EmptyDataSource(d *api.Deps) apigw.Endpoint { return emptyDataSource(d, false) }

// PurgeDataSourceDependents is DELETE /v1/data_sources/{uuid}/dependent
// (chartmogul-go's PurgeDataSource): as EmptyDataSource, but the source's customers
// stay, without its records.
func PurgeDataSourceDependents(d *api.Deps) apigw.Endpoint { return emptyDataSource(d, true) }

func emptyDataSource(d *api.Deps, keepCustomers bool) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("uuid")
		if _, err := api.LiveDataSource(ctx, d, r.AccountID, uuid); err != nil {
			return apigw.Response{}, err
		}
		// Each request is its own job: records imported since an earlier request are
		// this one's to delete.
		request := d.Now().UTC().Format(time.RFC3339Nano)
		if err := d.Jobs.Send(ctx, jobs.Empty(r.AccountID, uuid, keepCustomers, request)); err != nil {
			return apigw.Response{}, err
		}
		return apigw.NoContent()
	}}
}
