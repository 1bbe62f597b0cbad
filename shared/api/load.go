package api

import (
	"context"
	"errors"
	"strings"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// LoadByID reads an object of the account by its prefixed id. A malformed id answers
// malformed (for most resources the same 404 as an unknown one: an id that cannot
// exist is not found), an unknown one notFound; storage failures pass through.
func LoadByID[T any](ctx context.Context, uuid, prefix string, malformed, notFound *apperr.Error,
	get func(context.Context, string) (T, error)) (T, error) {
	var zero T
	if !ids.Valid(uuid, prefix) {
		return zero, malformed
	}
	v, err := get(ctx, uuid)
	if errors.Is(err, store.ErrNotFound) {
		return zero, notFound
	}
	return v, err
}

// ErrContactNotFound is ChartMogul's contact 404 (family A).
func ErrContactNotFound(uuid string) *apperr.Error {
	return apperr.NotFound("contact_uuid", "Contact %q does not exist", ids.Bare(uuid, ids.Contact))
}

// LoadContact reads a contact of the account; anything else is the contact 404.
func LoadContact(ctx context.Context, d *Deps, accountID, uuid string) (model.Contact, error) {
	get := func(ctx context.Context, id string) (model.Contact, error) {
		return d.Store.GetContact(ctx, accountID, id)
	}
	return LoadByID(ctx, uuid, ids.Contact, ErrContactNotFound(uuid), ErrContactNotFound(uuid), get)
}

// TeamMember reads the account's team member with an e-mail (case-insensitive);
// notMember when there is none.
func TeamMember(ctx context.Context, d *Deps, accountID, email string, notMember *apperr.Error) (model.Member, error) {
	email = strings.TrimSpace(email)
	if !model.ValidEmail(email) {
		return model.Member{}, notMember
	}
	m, err := d.Store.GetMember(ctx, accountID, email)
	if errors.Is(err, store.ErrNotFound) {
		return model.Member{}, notMember
	}
	return m, err
}

// ErrCustomerNotFound is ChartMogul's customer 404 (family A), echoing the bare uuid.
func ErrCustomerNotFound(uuid string) *apperr.Error {
	return apperr.NotFound("customer_id", "Customer %q does not exist", ids.Bare(uuid, ids.Customer))
}

// LoadCustomer reads a customer of the account; anything else is the customer 404.
func LoadCustomer(ctx context.Context, d *Deps, accountID, uuid string) (model.Customer, error) {
	get := func(ctx context.Context, id string) (model.Customer, error) {
		return d.Store.GetCustomer(ctx, accountID, id)
	}
	return LoadByID(ctx, uuid, ids.Customer, ErrCustomerNotFound(uuid), ErrCustomerNotFound(uuid), get)
}

// errDataSourceNotFound is ChartMogul's 404 for data sources (family B).
func errDataSourceNotFound() *apperr.Error {
	return apperr.NotFound("data_source_uuid", "Data source not found")
}

// DataSource reads a data source of the account, including one being deleted.
func DataSource(ctx context.Context, d *Deps, accountID, uuid string) (model.DataSource, error) {
	get := func(ctx context.Context, id string) (model.DataSource, error) {
		return d.Store.GetDataSource(ctx, accountID, id)
	}
	return LoadByID(ctx, uuid, ids.DataSource, errDataSourceNotFound(), errDataSourceNotFound(), get)
}

// LiveDataSource reads a data source of the account that is not being deleted.
func LiveDataSource(ctx context.Context, d *Deps, accountID, uuid string) (model.DataSource, error) {
	ds, err := DataSource(ctx, d, accountID, uuid)
	if err == nil && ds.Status == model.DataSourceDeleting {
		return model.DataSource{}, errDataSourceNotFound()
	}
	return ds, err
}

// ImportProgressConcurrency bounds the status reads of one json_imports page.
const ImportProgressConcurrency = 8
