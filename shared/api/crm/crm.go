package crm

import (
	"context"
	"errors"
	"net/http"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// The CRM records of a customer (notes, opportunities, tasks) share their operations:
// create (201), retrieve, update (200), delete (200 {}) and a listing of entries, all
// in family A. crmKind says what differs; the handlers below are the rest.

// crmRecord is a pointer to a CRM record of the model.
type crmRecord[T any] interface {
	*T
	Meta() *model.RecordMeta
}

// crmKind is one kind of CRM record: its path parameter (also the 404's param), the
// noun of its 404, its uuid prefix ("" for a bare UUID), whether it can be about a
// contact, how a body applies to it, and its reads, writes and rendering.
type crmKind[T any, P crmRecord[T]] struct {
	param, noun, prefix string
	contacts            bool
	// prepare applies a create (all required fields) or update body to v, reading the
	// store where a field needs it (team members).
	prepare        func(ctx context.Context, d *api.Deps, accountID string, body map[string]any, v P, create bool) error
	render         func(v T) jsonobj.Object
	get            func(ctx context.Context, d *api.Deps, accountID, uuid string) (T, error)
	create, update func(ctx context.Context, d *api.Deps, v T) error
	remove         func(ctx context.Context, d *api.Deps, v T) error
}

// notFound is the kind's 404, echoing the uuid without its prefix.
func (k crmKind[T, P]) notFound(uuid string) *apperr.Error {
	return apperr.NotFound(k.param, "%s %q does not exist", k.noun, ids.Bare(uuid, k.prefix))
}

// load reads the record named by the path: a 404 when it is not the account's.
func (k crmKind[T, P]) load(ctx context.Context, d *api.Deps, r *apigw.Request) (T, error) {
	uuid := r.PathParam(k.param)
	get := func(ctx context.Context, id string) (T, error) { return k.get(ctx, d, r.AccountID, id) }
	return api.LoadByID(ctx, uuid, k.prefix, k.notFound(uuid), k.notFound(uuid), get)
}

// withMember is the prepare of a kind whose body fields read reads and whose field
// member names a team member: on create, and on an update that sends it, the e-mail
// must be a member's of the account (as the account spells it), else a 422 naming the
// field.
func withMember[T any, P crmRecord[T]](read func(body map[string]any, v P, create bool) error, member string,
	field func(P) *string) func(context.Context, *api.Deps, string, map[string]any, P, bool) error {
	return func(ctx context.Context, d *api.Deps, accountID string, body map[string]any, v P, create bool) error {
		if err := read(body, v, create); err != nil {
			return api.ImportError(err)
		}
		if _, sent := body[member]; !sent && !create {
			return nil
		}
		email := field(v)
		m, err := api.TeamMember(ctx, d, accountID, *email,
			apperr.Unprocessable(member, "%q is not a team member of this account", *email))
		if err == nil {
			*email = m.Email
		}
		return err
	}
}

// crmCreate is POST of a CRM record: 201 with the record.
func crmCreate[T any, P crmRecord[T]](d *api.Deps, k crmKind[T, P]) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		body, err := api.DecodeObject(r)
		if err != nil {
			return apigw.Response{}, err
		}
		var v T
		m := P(&v).Meta()
		if err := attachRecord(ctx, d, r.AccountID, body, m, k.contacts); err != nil {
			return apigw.Response{}, err
		}
		now := d.Now()
		m.AccountID, m.UUID, m.CreatedAt, m.UpdatedAt = r.AccountID, ids.New(k.prefix), now, now
		if err := k.prepare(ctx, d, r.AccountID, body, &v, true); err != nil {
			return apigw.Response{}, err
		}
		switch err := k.create(ctx, d, v); {
		case errors.Is(err, store.ErrCustomerNotFound):
			return apigw.Response{}, api.ErrCustomerNotFound(m.CustomerUUID)
		case err != nil:
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusCreated, k.render(v))
	}}
}

// crmGet is GET of one CRM record.
func crmGet[T any, P crmRecord[T]](d *api.Deps, k crmKind[T, P]) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		v, err := k.load(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, k.render(v))
	}}
}

// crmUpdate is PATCH of a CRM record: the fields sent change, updated_at becomes now
// (always later than before); read-only fields clients echo back are ignored.
func crmUpdate[T any, P crmRecord[T]](d *api.Deps, k crmKind[T, P]) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		body, err := api.DecodeObject(r)
		if err != nil {
			return apigw.Response{}, err
		}
		v, err := k.load(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := k.prepare(ctx, d, r.AccountID, body, &v, false); err != nil {
			return apigw.Response{}, err
		}
		m := P(&v).Meta()
		m.UpdatedAt = laterThan(d.Now(), m.UpdatedAt)
		switch err := k.update(ctx, d, v); {
		case errors.Is(err, store.ErrNotFound):
			return apigw.Response{}, k.notFound(m.UUID)
		case err != nil:
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, k.render(v))
	}}
}

// crmDelete is DELETE of a CRM record: 200 {} (recorded).
func crmDelete[T any, P crmRecord[T]](d *api.Deps, k crmKind[T, P]) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		v, err := k.load(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := k.remove(ctx, d, v); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return apigw.Response{}, k.notFound(P(&v).Meta().UUID)
			}
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, jsonobj.Object{})
	}}
}

// attachRecord reads what a new record belongs to: customer_uuid, or (as the clients'
// contact-scoped creates send it) associated_object_identifier
// {"associated_object": "customer" or "contact", "method": "uuid", "value": uuid}. A
// contact's record belongs to the contact's customer and names the contact.
func attachRecord(ctx context.Context, d *api.Deps, accountID string, body map[string]any, m *model.RecordMeta, contacts bool) error {
	if raw, ok := body["customer_uuid"]; ok && raw != nil {
		cus, _ := raw.(string)
		if !ids.Valid(cus, ids.Customer) {
			return api.ErrCustomerNotFound(cus)
		}
		m.CustomerUUID = cus
		return nil
	}
	raw, ok := body["associated_object_identifier"]
	if !ok || raw == nil {
		return apperr.MissingParam("customer_uuid")
	}
	ident, _ := raw.(map[string]any)
	object, _ := ident["associated_object"].(string)
	method, _ := ident["method"].(string)
	value, _ := ident["value"].(string)
	const param = "associated_object_identifier"
	switch {
	case ident == nil:
		return apperr.Unprocessable(param, "associated_object_identifier must be an object")
	case method != "uuid":
		return apperr.Unprocessable(param, "associated_object_identifier.method must be \"uuid\"")
	case object == "customer":
		if !ids.Valid(value, ids.Customer) {
			return api.ErrCustomerNotFound(value)
		}
		m.CustomerUUID = value
	case object == "contact" && contacts:
		c, err := api.LoadContact(ctx, d, accountID, value)
		if err != nil {
			return err
		}
		m.CustomerUUID, m.ContactUUID = c.CustomerUUID, c.UUID
	default:
		allowed := `"customer"`
		if contacts {
			allowed += ` or "contact"`
		}
		return apperr.Unprocessable(param, "associated_object_identifier.associated_object must be %s", allowed)
	}
	return nil
}

// recordOwner reads the customer_uuid and (contacts: the listing has it) contact_uuid
// filters of a CRM listing: the customer whose records to read ("" for the account's; a
// contact's records are its customer's) and the contact. ok is false when nothing can
// match (a customer or contact that is not the account's, or a contact of another
// customer than the one asked for): an empty listing, not an error.
func recordOwner(ctx context.Context, d *api.Deps, r *apigw.Request, contacts bool) (customer, contact string, ok bool, err error) {
	customer = r.Query("customer_uuid")
	if contacts {
		contact = r.Query("contact_uuid")
	}
	if customer != "" && !ids.Valid(customer, ids.Customer) {
		return "", "", false, nil
	}
	if contact == "" {
		return customer, "", true, nil
	}
	c, err := api.LoadContact(ctx, d, r.AccountID, contact)
	if _, missing := apperr.As(err); missing {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	return c.CustomerUUID, contact, customer == "" || customer == c.CustomerUUID, nil
}
