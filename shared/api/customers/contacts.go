package customers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// refreshLastSeen keeps the customer's last_seen equal to the latest of its
// contacts', so that customer listings need no read per row.
func refreshLastSeen(ctx context.Context, d *api.Deps, accountID, customerUUID string) error {
	contacts, err := storage(d).CustomerContacts(ctx, accountID, customerUUID)
	if err != nil {
		return err
	}
	times := make([]*time.Time, len(contacts))
	for i := range contacts {
		times[i] = contacts[i].LastSeen
	}
	latest := model.LatestLastSeen(times)
	c, err := storage(d).GetCustomer(ctx, accountID, customerUUID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil || api.SameTime(c.LastSeen, latest) {
		return err
	}
	_, err = updateCustomer(ctx, d, accountID, customerUUID, func(c *model.Customer) error {
		c.LastSeen = latest
		return nil
	}, nil)
	if e, ok := apperr.As(err); ok && e.Status == http.StatusNotFound {
		return nil
	}
	return err
}

// createContact creates a contact of the customer uuid from a body.
func createContact(ctx context.Context, d *api.Deps, accountID, customerUUID string, b contactBody) (apigw.Response, error) {
	if !b.DataSourceUUID.Present() || strings.TrimSpace(b.DataSourceUUID.V) == "" {
		return apigw.Response{}, apperr.MissingParam("data_source_uuid")
	}
	cus, err := api.LoadCustomer(ctx, d, accountID, customerUUID)
	if err != nil {
		return apigw.Response{}, err
	}
	dsUUID := strings.TrimSpace(b.DataSourceUUID.V)
	if !slices.Contains(cus.DataSourceUUIDs, dsUUID) {
		return apigw.Response{}, apperr.Unprocessable("data_source_uuid", "The data source %q is not a data source of this customer", dsUUID)
	}
	existing, err := storage(d).CustomerContacts(ctx, accountID, cus.UUID)
	if err != nil {
		return apigw.Response{}, err
	}
	c := model.Contact{AccountID: accountID, UUID: model.NewContactUUID(), CustomerUUID: cus.UUID,
		CustomerExternalID: cus.ExternalID, DataSourceUUID: dsUUID, Position: len(existing) + 1,
		Custom: map[string]model.AttrValue{}}
	if err := applyContactFields(ctx, d, &c, b); err != nil {
		return apigw.Response{}, err
	}
	if err := contactSaveError(storage(d).CreateContact(ctx, c)); err != nil {
		return apigw.Response{}, err
	}
	if c.LastSeen != nil {
		if err := refreshLastSeen(ctx, d, accountID, cus.UUID); err != nil {
			return apigw.Response{}, err
		}
	}
	saved, err := storage(d).GetContact(ctx, accountID, c.UUID)
	if err != nil {
		return apigw.Response{}, err
	}
	return apigw.JSON(http.StatusCreated, newContactJSON(saved))
}

// CreateContact is POST /v1/contacts.
func CreateContact(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var b contactBody
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		if !b.CustomerUUID.Present() || strings.TrimSpace(b.CustomerUUID.V) == "" {
			return apigw.Response{}, apperr.MissingParam("customer_uuid")
		}
		return createContact(ctx, d, r.AccountID, strings.TrimSpace(b.CustomerUUID.V), b)
	}}
}

// CreateCustomerContact is POST /v1/customers/{customer_uuid}/contacts.
func CreateCustomerContact(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var b contactBody
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		return createContact(ctx, d, r.AccountID, r.PathParam("customer_uuid"), b)
	}}
}

// GetContact is GET /v1/contacts/{contact_uuid}.
func GetContact(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := api.LoadContact(ctx, d, r.AccountID, r.PathParam("contact_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, newContactJSON(c))
	}}
}

// UpdateContact is PATCH /v1/contacts/{contact_uuid}: 200 with the contact.
func UpdateContact(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("contact_uuid")
		old, err := api.LoadContact(ctx, d, r.AccountID, uuid)
		if err != nil {
			return apigw.Response{}, err
		}
		var b contactBody
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		next := old
		next.Custom = mergeAttrs(old.Custom, nil)
		if err := applyContactFields(ctx, d, &next, b); err != nil {
			return apigw.Response{}, err
		}
		if err := storage(d).SaveContact(ctx, &old, next); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return apigw.Response{}, api.ErrContactNotFound(uuid)
			}
			return apigw.Response{}, contactSaveError(err)
		}
		if !api.SameTime(old.LastSeen, next.LastSeen) {
			if err := refreshLastSeen(ctx, d, r.AccountID, next.CustomerUUID); err != nil {
				return apigw.Response{}, err
			}
		}
		saved, err := storage(d).GetContact(ctx, r.AccountID, uuid)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, newContactJSON(saved))
	}}
}

// DeleteContact is DELETE /v1/contacts/{contact_uuid}: 200 with {}.
func DeleteContact(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("contact_uuid")
		c, err := api.LoadContact(ctx, d, r.AccountID, uuid)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := storage(d).DeleteContact(ctx, c); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return apigw.Response{}, api.ErrContactNotFound(uuid)
			}
			return apigw.Response{}, err
		}
		if c.LastSeen != nil {
			if err := refreshLastSeen(ctx, d, r.AccountID, c.CustomerUUID); err != nil {
				return apigw.Response{}, err
			}
		}
		return apigw.JSON(http.StatusOK, struct{}{})
	}}
}

// MergeContacts is POST /v1/contacts/{contact_uuid}/merge/{from_uuid}: the empty
// fields of the first contact are filled from the second, which is deleted.
func MergeContacts(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		into, err := api.LoadContact(ctx, d, r.AccountID, r.PathParam("contact_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		from, err := api.LoadContact(ctx, d, r.AccountID, r.PathParam("from_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		if into.UUID == from.UUID {
			return apigw.Response{}, apperr.Unprocessable("contact_uuid", "A contact cannot be merged into itself")
		}
		next := into
		next.Custom = mergeAttrs(into.Custom, nil)
		next.FillFrom(from)
		if err := storage(d).MergeContacts(ctx, into, next, from); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return apigw.Response{}, apperr.Conflict("email", "The merged e-mail is already used by another contact of this customer, or a contact changed during the merge; retry.")
			}
			return apigw.Response{}, err
		}
		for _, cus := range slices.Compact([]string{into.CustomerUUID, from.CustomerUUID}) {
			if err := refreshLastSeen(ctx, d, r.AccountID, cus); err != nil {
				return apigw.Response{}, err
			}
		}
		saved, err := storage(d).GetContact(ctx, r.AccountID, into.UUID)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, newContactJSON(saved))
	}}
}
