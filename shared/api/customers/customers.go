package customers

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

func cloneCustomer(c model.Customer) model.Customer {
	c.Tags = slices.Clone(c.Tags)
	c.Custom = maps.Clone(c.Custom)
	c.DataSourceUUIDs = slices.Clone(c.DataSourceUUIDs)
	c.ExternalIDs = slices.Clone(c.ExternalIDs)
	c.Systems = slices.Clone(c.Systems)
	return c
}

// maxSaveAttempts bounds the re-read-and-retry loop of concurrent customer updates.
const maxSaveAttempts = 5

// updateCustomer applies change to the stored customer and saves it, re-reading and
// re-applying when another writer got there first. before runs once, after the
// first successful change and before the first save (side writes such as the
// primary contact, so that a broken rule leaves everything unchanged).
func updateCustomer(ctx context.Context, d *api.Deps, accountID, uuid string, change func(*model.Customer) error, before func(model.Customer) error) (model.Customer, error) {
	for attempt := 0; ; attempt++ {
		old, err := api.LoadCustomer(ctx, d, accountID, uuid)
		if err != nil {
			return model.Customer{}, err
		}
		next := cloneCustomer(old)
		if err := change(&next); err != nil {
			return model.Customer{}, err
		}
		if before != nil {
			if err := before(next); err != nil {
				return model.Customer{}, err
			}
			before = nil
		}
		err = storage(d).SaveCustomer(ctx, old, next)
		switch {
		case err == nil:
			next.Version = old.Version + 1
			return next, nil
		case errors.Is(err, store.ErrNotFound):
			return model.Customer{}, api.ErrCustomerNotFound(uuid)
		case errors.Is(err, store.ErrConflict) && attempt+1 < maxSaveAttempts:
			continue
		default:
			return model.Customer{}, err
		}
	}
}

func customerResponse(d *api.Deps, status int, c model.Customer) (apigw.Response, error) {
	return apigw.JSON(status, newCustomerJSON(c, d.AppURL))
}

// CreateCustomer is POST /v1/customers.
func CreateCustomer(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var b customerBody
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		missing := map[string]string{}
		if strings.TrimSpace(b.ExternalID.V) == "" {
			missing["external_id"] = "A unique external ID is required for each customer."
		}
		if strings.TrimSpace(b.Name.V) == "" {
			missing["name"] = "A name is required for each customer."
		}
		ds, err := api.LiveDataSource(ctx, d, r.AccountID, b.DataSourceUUID.V)
		if err != nil {
			if _, ok := apperr.As(err); !ok {
				return apigw.Response{}, err
			}
			missing["data_source_uuid"] = "A valid data source UUID is required for each customer."
		}
		if len(missing) > 0 {
			return apigw.Response{}, apperr.Validation(missing)
		}
		externalID, err := model.Text("external_id", strings.TrimSpace(b.ExternalID.V))
		if err != nil {
			return apigw.Response{}, ruleError(err)
		}
		acc, err := storage(d).GetAccount(ctx, r.AccountID)
		if err != nil {
			return apigw.Response{}, err
		}
		now := d.Now()
		c := model.Customer{AccountID: r.AccountID, UUID: model.NewCustomerUUID(),
			DataSourceUUID: ds.UUID, DataSourceUUIDs: []string{ds.UUID}, ExternalID: externalID,
			ExternalIDs: []string{externalID}, Systems: []string{ds.System}, Status: model.StatusNewLead,
			Tags: []string{}, Custom: map[string]model.AttrValue{}, BillingSystemType: model.BillingSystemCustom,
			Currency: acc.Currency, CreatedAt: now, UpdatedAt: now}
		if err := applyCustomerFields(ctx, d, r.AccountID, &c, b); err != nil {
			return apigw.Response{}, err
		}
		primary, err := checkPrimaryContact(b.PrimaryContact)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := applyCustomerAttributes(ctx, d, r.AccountID, &c, b.Attributes, true); err != nil {
			return apigw.Response{}, err
		}
		if c.ID, err = storage(d).NextCustomerID(ctx, r.AccountID); err != nil {
			return apigw.Response{}, err
		}
		if err := storage(d).CreateCustomer(ctx, c); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return apigw.Response{}, apperr.Conflict("external_id", "The external ID for this customer already exists in our system.")
			}
			return apigw.Response{}, err
		}
		if primary != nil {
			if err := upsertPrimaryContact(ctx, d, c, *primary); err != nil {
				return apigw.Response{}, err
			}
		}
		return customerResponse(d, http.StatusCreated, c)
	}}
}

// GetCustomer is GET /v1/customers/{customer_uuid}.
func GetCustomer(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := api.LoadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		return customerResponse(d, http.StatusOK, c)
	}}
}

// UpdateCustomer is PATCH /v1/customers/{customer_uuid} (and PUT, which
// chartmogul-node's Customer.update sends). Every rule is checked before anything
// is written, so a rejected request changes nothing.
func UpdateCustomer(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("customer_uuid")
		var b customerBody
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		primary, err := checkPrimaryContact(b.PrimaryContact)
		if err != nil {
			return apigw.Response{}, err
		}
		var previous model.Customer // the stored customer the saved change was applied to
		change := func(c *model.Customer) error {
			previous = *c
			if err := applyCustomerFields(ctx, d, r.AccountID, c, b); err != nil {
				return err
			}
			return applyCustomerAttributes(ctx, d, r.AccountID, c, b.Attributes, false)
		}
		var before func(model.Customer) error
		if primary != nil {
			before = func(c model.Customer) error { return upsertPrimaryContact(ctx, d, c, *primary) }
		}
		c, err := updateCustomer(ctx, d, r.AccountID, uuid, change, before)
		if err != nil {
			return apigw.Response{}, err
		}
		recomputeAfterEdit(ctx, d, previous, c)
		return customerResponse(d, http.StatusOK, c)
	}}
}

// DeleteCustomer is DELETE /v1/customers/{customer_uuid}.
func DeleteCustomer(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := api.LoadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		// The erasure's last step, taking the customer out of the account's series and
		// activities, is its recomputation, which finds it gone. It is queued before the
		// deletion, so that a failed send deletes nothing and a retried DELETE finds the
		// customer again; and again after, for the case where the first one ran while the
		// deletion was under way (docs/data-model.md, "Erasure").
		if err := d.Jobs.Send(ctx, jobs.Recompute(c.AccountID, c.UUID, "erase")); err != nil {
			return apigw.Response{}, err
		}
		if err := storage(d).DeleteCustomer(ctx, c); err != nil {
			return apigw.Response{}, err
		}
		if err := d.Jobs.Send(ctx, jobs.Recompute(c.AccountID, c.UUID, "erased")); err != nil {
			slog.ErrorContext(ctx, "recomputation after a customer deletion not enqueued", "account_id", c.AccountID,
				"customer_uuid", c.UUID, "error", err.Error())
		}
		return apigw.NoContent()
	}}
}
