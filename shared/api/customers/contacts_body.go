package customers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// contactBody is the body of contact create and update.
type contactBody struct {
	CustomerUUID   api.Text            `json:"customer_uuid"`
	DataSourceUUID api.Text            `json:"data_source_uuid"`
	ExternalID     api.Text            `json:"external_id"`
	Position       optional.Value[int] `json:"position"`
	LastSeen       api.Text            `json:"last_seen"`
	Custom         json.RawMessage     `json:"custom"`
	primaryContactBody
}

// contactText applies an optional nullable text field of a contact.
func contactText(dst **string, v api.Text, param string, maxLen int) error {
	if !v.Set {
		return nil
	}
	if v.Null {
		*dst = nil
		return nil
	}
	s := strings.TrimSpace(v.V)
	if utf8.RuneCountInString(s) > maxLen {
		return apperr.Unprocessable(param, "The %s is too long (maximum is %d characters)", param, maxLen)
	}
	*dst = &s
	return nil
}

// applyContactText applies the person fields shared by contacts and the customer's
// primary contact, checking the e-mail's shape.
func applyContactText(c *model.Contact, b primaryContactBody) error {
	if b.Email.Present() && strings.TrimSpace(b.Email.V) != "" {
		if _, err := model.EmailAddress(b.Email.V); err != nil {
			return ruleError(err)
		}
	}
	steps := []error{
		contactText(&c.FirstName, b.FirstName, "first_name", model.MaxTextLength),
		contactText(&c.LastName, b.LastName, "last_name", model.MaxTextLength),
		contactText(&c.Title, b.Title, "title", model.MaxTextLength),
		contactText(&c.Email, b.Email, "email", model.MaxTextLength),
		contactText(&c.Phone, b.Phone, "phone", model.MaxTextLength),
		contactText(&c.LinkedIn, b.LinkedIn, "linked_in", model.MaxTextLength),
		contactText(&c.Twitter, b.Twitter, "twitter", model.MaxTextLength),
		contactText(&c.Notes, b.Notes, "notes", model.MaxNotesLength),
	}
	for _, err := range steps {
		if err != nil {
			return err
		}
	}
	if c.Email != nil && *c.Email == "" {
		c.Email = nil
	}
	return nil
}

// applyContactFields applies a contact body (all but customer and data source).
func applyContactFields(ctx context.Context, d *api.Deps, c *model.Contact, b contactBody) error {
	if err := applyContactText(c, b.primaryContactBody); err != nil {
		return err
	}
	if err := contactText(&c.ExternalID, b.ExternalID, "external_id", model.MaxTextLength); err != nil {
		return err
	}
	if b.Position.Set {
		if b.Position.Null || b.Position.V < 1 {
			return apperr.Unprocessable("position", "The position must be an integer of 1 or more")
		}
		c.Position = b.Position.V
	}
	if b.LastSeen.Set {
		if b.LastSeen.Null || strings.TrimSpace(b.LastSeen.V) == "" {
			c.LastSeen = nil
		} else {
			t, err := model.PastTime("last_seen", b.LastSeen.V, d.Now())
			if err != nil {
				return ruleError(err)
			}
			c.LastSeen = &t
		}
	}
	if len(strings.TrimSpace(string(b.Custom))) > 0 {
		custom, err := customMapFromBody(ctx, d, c.AccountID, model.AttrObjectContact, b.Custom)
		if err != nil {
			return err
		}
		c.Custom = mergeAttrs(c.Custom, custom)
	}
	return nil
}

// checkPrimaryContact validates a customer body's primary_contact before anything
// is written.
func checkPrimaryContact(v optional.Value[primaryContactBody]) (*primaryContactBody, error) {
	if !v.Present() {
		return nil, nil
	}
	var probe model.Contact
	if err := applyContactText(&probe, v.V); err != nil {
		return nil, err
	}
	return &v.V, nil
}

// upsertPrimaryContact creates or updates the customer's contact at position 1.
func upsertPrimaryContact(ctx context.Context, d *api.Deps, c model.Customer, p primaryContactBody) error {
	contacts, err := storage(d).CustomerContacts(ctx, c.AccountID, c.UUID)
	if err != nil {
		return err
	}
	contacts = slices.DeleteFunc(contacts, func(x model.Contact) bool { return x.Position != 1 })
	slices.SortFunc(contacts, func(a, b model.Contact) int { return strings.Compare(a.UUID, b.UUID) })
	var old *model.Contact
	next := model.Contact{AccountID: c.AccountID, UUID: model.NewContactUUID(), CustomerUUID: c.UUID,
		CustomerExternalID: c.ExternalID, DataSourceUUID: c.DataSourceUUID, Position: 1,
		Custom: map[string]model.AttrValue{}}
	if len(contacts) > 0 {
		old = &contacts[0]
		next = *old
	}
	if err := applyContactText(&next, p); err != nil {
		return err
	}
	return contactSaveError(storage(d).SaveContact(ctx, old, next))
}

// contactSaveError maps store errors of a contact write to API errors.
func contactSaveError(err error) error {
	switch {
	case errors.Is(err, store.ErrDuplicateEmail):
		return apperr.Conflict("email", "A contact with this email already exists for this customer.")
	case errors.Is(err, store.ErrConflict):
		return apperr.Conflict("", "The contact was changed by another request; retry.")
	}
	return err
}

// contactJSON is the contact object in ChartMogul's key order (docs/api.md, "Objects");
// custom is a map, or an array of key and value in update responses.
type contactJSON struct {
	UUID               string         `json:"uuid"`
	CustomerUUID       string         `json:"customer_uuid"`
	CustomerExternalID string         `json:"customer_external_id"`
	DataSourceUUID     string         `json:"data_source_uuid"`
	ExternalID         *string        `json:"external_id"`
	Position           int            `json:"position"`
	FirstName          *string        `json:"first_name"`
	LastName           *string        `json:"last_name"`
	Title              *string        `json:"title"`
	Email              *string        `json:"email"`
	Phone              *string        `json:"phone"`
	LinkedIn           *string        `json:"linked_in"`
	Twitter            *string        `json:"twitter"`
	Notes              *string        `json:"notes"`
	Custom             map[string]any `json:"custom"`
	LastSeen           *string        `json:"last_seen"`
}

// newContactJSON renders a contact. custom is an object in every response, the PATCH
// answer included, as recorded: it is an array of key and value only in requests.
func newContactJSON(c model.Contact) contactJSON {
	return contactJSON{UUID: c.UUID, CustomerUUID: c.CustomerUUID, CustomerExternalID: c.CustomerExternalID,
		DataSourceUUID: c.DataSourceUUID, ExternalID: c.ExternalID, Position: c.Position,
		FirstName: c.FirstName, LastName: c.LastName, Title: c.Title, Email: c.Email, Phone: c.Phone,
		LinkedIn: c.LinkedIn, Twitter: c.Twitter, Notes: c.Notes, Custom: model.AttrMapJSON(c.Custom),
		LastSeen: timefmt.MillisPtr(c.LastSeen)}
}
