package jsonimports

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// CreateJSONImport is POST /v1/data_sources/{data_source_uuid}/json_imports: the
// whole body is validated, then queued (imports.Pipeline.Accept). 200 with the import.
func CreateJSONImport(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		body, err := r.Body()
		if err != nil {
			return apigw.Response{}, err
		}
		if len(body) > model.MaxImportBytes {
			return apigw.Response{}, apperr.TooLarge("The payload is larger than 5 MB; split it into several imports")
		}
		ds, err := api.LiveDataSource(ctx, d, r.AccountID, r.PathParam("data_source_uuid"))
		if err != nil {
			return apigw.Response{}, inFamilyB(err)
		}
		acc, err := storage(d).GetAccount(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		imp, err := d.Imports.Accept(ctx, acc, ds, body)
		if err != nil {
			return apigw.Response{}, quotaError(err)
		}
		return apigw.JSON(http.StatusOK, importJSON(imp, nil))
	}}
}

// GetJSONImport is GET /v1/data_sources/{data_source_uuid}/json_imports/{import_id};
// import_id is the external id given at import, or the id the API returned.
func GetJSONImport(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		ds, err := api.LiveDataSource(ctx, d, r.AccountID, r.PathParam("data_source_uuid"))
		if err != nil {
			return apigw.Response{}, inFamilyB(err)
		}
		id := r.PathParam("import_id")
		imp, err := storage(d).GetImport(ctx, r.AccountID, ds.UUID, id)
		if errors.Is(err, store.ErrNotFound) {
			if _, perr := uuid.Parse(id); perr == nil && len(id) == 36 {
				imp, err = storage(d).GetImportByID(ctx, r.AccountID, ds.UUID, id)
			}
		}
		if errors.Is(err, store.ErrNotFound) {
			return apigw.Response{}, apperr.NotFound("import_id", "Import %q does not exist", id)
		}
		if err != nil {
			return apigw.Response{}, err
		}
		pr, err := d.Imports.Progress(ctx, imp)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, importJSON(imp, &pr))
	}}
}

// quotaError answers a refusal by the account's import quotas: 429 with Retry-After
// for imports in flight or records per minute (the client sends the same body again
// later; nothing of it was written), 422 for an import larger than a minute's records.
func quotaError(err error) error {
	var q *imports.QuotaError
	switch {
	case errors.As(err, &q) && q.Split:
		return apperr.Unprocessable("", "%s", q.Message)
	case errors.As(err, &q):
		return apigw.TooManyRequests(q.Message, q.RetryAfter)
	}
	return api.ImportError(err)
}

func inFamilyB(err error) error {
	if e, ok := apperr.As(err); ok {
		return e.In(apperr.FamilyB)
	}
	return err
}

// importJSON renders an import; without progress (the create response) its
// status_details is {}.
func importJSON(imp model.Import, pr *imports.Progress) jsonobj.Object {
	status, updated := model.ImportQueued, imp.UpdatedAt
	details := jsonobj.Object{}
	if pr != nil {
		status = pr.Status
		details = append(details, jsonobj.Field{Key: "plans", Value: kindJSON(imp.Plans)})
		for _, c := range pr.Customers {
			if c.UpdatedAt.After(updated) {
				updated = c.UpdatedAt
			}
			entry := jsonobj.Object{{Key: "status", Value: c.Status}}
			if len(c.Errors) > 0 {
				entry = append(entry, jsonobj.Field{Key: "errors", Value: c.Errors})
			}
			entry = append(entry,
				jsonobj.Field{Key: "customers", Value: kindJSON(c.Customers)},
				jsonobj.Field{Key: "invoices", Value: kindJSON(c.Invoices)},
				jsonobj.Field{Key: "line_items", Value: kindJSON(c.LineItems)},
				jsonobj.Field{Key: "transactions", Value: kindJSON(c.Transactions)},
				jsonobj.Field{Key: "subscription_events", Value: kindJSON(c.SubscriptionEvents)})
			details = append(details, jsonobj.Field{Key: c.ExternalID, Value: entry})
		}
	}
	return jsonobj.Object{
		{Key: "id", Value: imp.ID},
		{Key: "data_source_uuid", Value: imp.DataSourceUUID},
		{Key: "status", Value: status},
		{Key: "external_id", Value: imp.ExternalID},
		{Key: "status_details", Value: details},
		{Key: "created_at", Value: timefmt.Seconds(imp.CreatedAt)},
		{Key: "updated_at", Value: timefmt.Seconds(updated)},
	}
}

func kindJSON(k model.KindStatus) jsonobj.Object {
	st := k.Status
	if st == "" {
		st = model.RecordsImported
	}
	o := jsonobj.Object{{Key: "status", Value: st}}
	if len(k.Errors) > 0 {
		o = append(o, jsonobj.Field{Key: "errors", Value: k.Errors})
	}
	return o
}
