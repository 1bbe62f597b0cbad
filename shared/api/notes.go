package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// noteJSON is the customer note object, keys in ChartMogul's order.
type noteJSON struct {
	UUID         string `json:"uuid"`
	CustomerUUID string `json:"customer_uuid"`
	Type         string `json:"type"`
	Text         string `json:"text"`
	CallDuration int    `json:"call_duration"`
	Author       string `json:"author"`
	CreatedAt    string `json:"created_at"`
	UpdatedAt    string `json:"updated_at"`
}

func newNoteJSON(n model.Note) noteJSON {
	return noteJSON{UUID: n.UUID, CustomerUUID: n.CustomerUUID, Type: n.Type, Text: n.Text,
		CallDuration: n.CallDuration, Author: n.Author(), CreatedAt: timefmt.Millis(n.CreatedAt),
		UpdatedAt: timefmt.Millis(n.UpdatedAt)}
}

// notePathParam is the route parameter of the single-note operations.
const notePathParam = "note_uuid"

// noteBody is what create and update accept; loose values make a wrong JSON type a
// 422 on that field rather than a decoding error.
type noteBody struct {
	CustomerUUID optional.Value[any] `json:"customer_uuid"`
	Type         optional.Value[any] `json:"type"`
	Text         optional.Value[any] `json:"text"`
	AuthorEmail  optional.Value[any] `json:"author_email"`
	CallDuration optional.Value[any] `json:"call_duration"`
	CreatedAt    optional.Value[any] `json:"created_at"`
}

// CreateCustomerNote is POST /v1/customer_notes: 201 with the note. A call without
// call_duration lasts 0 seconds; a note without author_email is the account's first
// team member's (docs/clients.md).
func CreateCustomerNote(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var body noteBody
		if err := r.Decode(&body); err != nil {
			return apigw.Response{}, err
		}
		if !body.CustomerUUID.Present() {
			return apigw.Response{}, apperr.MissingParam("customer_uuid")
		}
		if !body.Type.Present() {
			return apigw.Response{}, apperr.MissingParam("type")
		}
		customerUUID, _ := body.CustomerUUID.V.(string)
		if !ids.Valid(customerUUID, ids.Customer) {
			return apigw.Response{}, noteCustomerNotFound(customerUUID)
		}
		now := d.Now()
		n := model.Note{AccountID: r.AccountID, UUID: model.NewNoteUUID(), CustomerUUID: customerUUID,
			CreatedAt: now, UpdatedAt: now}
		n.Type, _ = body.Type.V.(string)
		if !model.ValidNoteType(n.Type) {
			return apigw.Response{}, apperr.Unprocessable("type", "The type must be either \"note\" or \"call\".")
		}
		if err := applyNoteFields(ctx, d, r.AccountID, body, &n); err != nil {
			return apigw.Response{}, err
		}
		if !body.AuthorEmail.Present() {
			members, err := d.Store.ListMembers(ctx, r.AccountID)
			if err != nil {
				return apigw.Response{}, err
			}
			if m, ok := model.FirstMember(members); ok {
				n.AuthorEmail, n.AuthorName = m.Email, m.Name
			}
		}
		switch err := d.Store.CreateNote(ctx, n); {
		case errors.Is(err, store.ErrCustomerNotFound):
			return apigw.Response{}, noteCustomerNotFound(customerUUID)
		case err != nil:
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusCreated, newNoteJSON(n))
	}}
}

// applyNoteFields validates the optional fields shared by create and update and
// sets them on n.
func applyNoteFields(ctx context.Context, d *Deps, accountID string, body noteBody, n *model.Note) error {
	if body.Text.Set {
		text, ok := body.Text.V.(string)
		if !ok && !body.Text.Null {
			return apperr.Unprocessable("text", "The text must be a string.")
		}
		if len([]rune(text)) > model.MaxNoteTextLength {
			return apperr.Unprocessable("text", "The text is too long (maximum is %d characters).", model.MaxNoteTextLength)
		}
		n.Text = text
	}
	if body.CallDuration.Present() {
		dur, err := model.ParseCallDuration(body.CallDuration.V)
		if err != nil {
			return apperr.Unprocessable("call_duration", "The call duration %s.", err.Error())
		}
		n.CallDuration = dur
	}
	if body.CreatedAt.Set {
		raw, _ := body.CreatedAt.V.(string)
		t, err := timefmt.Parse(raw)
		if err != nil || raw == "" {
			return apperr.Unprocessable("created_at", "The created_at value must be an ISO 8601 timestamp.")
		}
		n.CreatedAt = t
	}
	// A null author_email changes nothing: clients echo the fields they hold.
	if body.AuthorEmail.Present() {
		email, _ := body.AuthorEmail.V.(string)
		m, err := noteAuthor(ctx, d, accountID, strings.TrimSpace(email))
		if err != nil {
			return err
		}
		n.AuthorEmail, n.AuthorName = m.Email, m.Name
	}
	n.Normalize()
	return nil
}

// noteAuthor reads the team member a note is attributed to.
func noteAuthor(ctx context.Context, d *Deps, accountID, email string) (model.Member, error) {
	errAuthor := apperr.Unprocessable("author_email", "The author_email must be the e-mail of a team member of the account.")
	if !model.ValidEmail(email) {
		return model.Member{}, errAuthor
	}
	m, err := d.Store.GetMember(ctx, accountID, email)
	if errors.Is(err, store.ErrNotFound) {
		return model.Member{}, errAuthor
	}
	return m, err
}

// GetCustomerNote is GET /v1/customer_notes/{note_uuid}.
func GetCustomerNote(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		n, err := noteOf(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, newNoteJSON(n))
	}}
}

// UpdateCustomerNote is PATCH /v1/customer_notes/{note_uuid}: author_email, text,
// call_duration, created_at; updated_at becomes now. type cannot change and is ignored,
// as are read-only fields clients echo back.
func UpdateCustomerNote(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var body noteBody
		if err := r.Decode(&body); err != nil {
			return apigw.Response{}, err
		}
		n, err := noteOf(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := applyNoteFields(ctx, d, r.AccountID, body, &n); err != nil {
			return apigw.Response{}, err
		}
		n.UpdatedAt = laterThan(d.Now(), n.UpdatedAt)
		updated, err := d.Store.UpdateNote(ctx, n)
		if errors.Is(err, store.ErrNotFound) {
			return apigw.Response{}, errNoteNotFound(n.UUID)
		}
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, newNoteJSON(updated))
	}}
}

// laterThan returns now, or a millisecond after prev if the clock has not moved past
// it, so that a bumped updated_at always shows as changed.
func laterThan(now, prev time.Time) time.Time {
	if !now.Truncate(time.Millisecond).After(prev.Truncate(time.Millisecond)) {
		return prev.Truncate(time.Millisecond).Add(time.Millisecond)
	}
	return now
}

// DeleteCustomerNote is DELETE /v1/customer_notes/{note_uuid}: 200 {}.
func DeleteCustomerNote(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		n, err := noteOf(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := d.Store.DeleteNote(ctx, n); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return apigw.Response{}, errNoteNotFound(n.UUID)
			}
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, struct{}{})
	}}
}

// noteOf reads the note named by the path, as a 404 when it is not the account's.
func noteOf(ctx context.Context, d *Deps, r *apigw.Request) (model.Note, error) {
	uuid := r.PathParam(notePathParam)
	get := func(ctx context.Context, id string) (model.Note, error) { return d.Store.GetNote(ctx, r.AccountID, id) }
	return loadByID(ctx, uuid, ids.Note, errNoteNotFound(uuid), errNoteNotFound(uuid), get)
}

// errNoteNotFound is the notes' 404 (family A), echoing the bare uuid.
func errNoteNotFound(uuid string) *apperr.Error {
	return apperr.NotFound(notePathParam, "Note %q does not exist", ids.Bare(uuid, ids.Note))
}

// noteCustomerNotFound is the customers' 404 (family A) for a note's customer.
func noteCustomerNotFound(uuid string) *apperr.Error {
	return apperr.NotFound("customer_id", "Customer %q does not exist", ids.Bare(uuid, ids.Customer))
}
