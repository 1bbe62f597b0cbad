package metricsapi

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// exportURLTTL is how long a download URL of an export works. The URL is signed with
// the function's credentials, which on Lambda last hours, not days: each retrieve signs
// a new one (the file itself stays in the bucket for its lifecycle's 7 days).
const exportURLTTL = time.Hour

// CreateActivitiesExport is POST /v1/activities_export with {"start-date", "end-date",
// "type"} (each optional, read as GET /v1/activities reads them): 200 (as ChartMogul)
// with the pending export; the jobs worker writes the CSV.
func CreateActivitiesExport(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var b struct {
			StartDate *string `json:"start-date"`
			EndDate   *string `json:"end-date"`
			Type      *string `json:"type"`
		}
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		now := d.Now()
		e := model.ActivitiesExport{AccountID: r.AccountID, ID: model.NewActivitiesExportID(), Status: model.ExportPending,
			CreatedAt: now, UpdatedAt: now}
		var err error
		if b.StartDate != nil {
			if e.From, err = api.ActivityBound("start-date", *b.StartDate, false); err != nil {
				return apigw.Response{}, err
			}
		}
		if b.EndDate != nil {
			if e.To, err = api.ActivityBound("end-date", *b.EndDate, true); err != nil {
				return apigw.Response{}, err
			}
		}
		if !e.From.IsZero() && !e.To.IsZero() && e.To.Before(e.From) {
			return apigw.Response{}, apperr.BadRequest("end-date", "Parameter \"end-date\" must not be before \"start-date\"")
		}
		if b.Type != nil && *b.Type != "" {
			if !slices.Contains(activityTypes, *b.Type) {
				return apigw.Response{}, apperr.BadRequest("type", "Invalid value for parameter \"type\": %q (one of %s)",
					*b.Type, strings.Join(activityTypes, ", "))
			}
			e.Type = *b.Type
		}
		if err := storage(d).CreateActivitiesExport(ctx, e); err != nil {
			return apigw.Response{}, err
		}
		if err := d.Jobs.Send(ctx, jobs.Export(e.AccountID, e.ID)); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, exportJSON(e, "", time.Time{}))
	}}
}

// GetActivitiesExport is GET /v1/activities_export/{id}: the export's status; once it
// succeeded, file_url is a presigned download URL of the CSV and expires_at when it
// stops working.
func GetActivitiesExport(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		id := r.PathParam("id")
		notFound := apperr.NotFound("id", "Activities export %q does not exist", id)
		if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
			return apigw.Response{}, notFound
		}
		e, err := storage(d).GetActivitiesExport(ctx, r.AccountID, id)
		if errors.Is(err, store.ErrNotFound) {
			return apigw.Response{}, notFound
		}
		if err != nil {
			return apigw.Response{}, err
		}
		if e.Status != model.ExportSucceeded {
			return apigw.JSON(http.StatusOK, exportJSON(e, "", time.Time{}))
		}
		expires := d.Now().Add(exportURLTTL).Truncate(time.Second)
		url, err := d.Files.DownloadURL(ctx, e.FileKey, exportURLTTL)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, exportJSON(e, url, expires))
	}}
}

// exportJSON renders an export as ChartMogul does: params echo the filter in their
// recorded form ("2020-01-01 00:00:00 +0000"), file_url and expires_at are null until
// the file exists, and times carry "+00:00".
func exportJSON(e model.ActivitiesExport, url string, expires time.Time) jsonobj.Object {
	params := jsonobj.Object{}
	if e.Type != "" {
		params = append(params, jsonobj.Field{Key: "activity_type", Value: e.Type})
	}
	if !e.From.IsZero() {
		params = append(params, jsonobj.Field{Key: "start_date", Value: e.From.UTC().Format("2006-01-02 15:04:05 -0700")})
	}
	if !e.To.IsZero() {
		params = append(params, jsonobj.Field{Key: "end_date", Value: e.To.UTC().Format("2006-01-02 15:04:05 -0700")})
	}
	var fileURL, expiresAt any
	if url != "" {
		fileURL, expiresAt = url, timefmt.Offset(expires.UTC())
	}
	return jsonobj.Object{
		{Key: "id", Value: e.ID},
		{Key: "status", Value: e.Status},
		{Key: "file_url", Value: fileURL},
		{Key: "params", Value: jsonobj.Object{{Key: "kind", Value: "activities"}, {Key: "params", Value: params}}},
		{Key: "expires_at", Value: expiresAt},
		{Key: "created_at", Value: timefmt.Offset(e.CreatedAt.UTC())},
	}
}
