package crm

import (
	"context"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/timefmt"
)

// Notes and call logs have two routes over one store: /v1/customer_notes (ChartMogul's
// older route, the recorded shape) and /v1/notes (entity notes, which may be about a
// contact and then name it). A note made through either is listed and changed through
// both (docs/data-model.md, "Customer notes").

// notePathParam is the route parameter of the single-note operations.
const notePathParam = "note_uuid"

// noteKind is a CRM kind of notes rendered by render; contacts marks /v1/notes (a note
// may name a contact, and an update that changes nothing is a 304).
func noteKind(render func(model.Note) jsonobj.Object, contacts bool) crmKind[model.Note, *model.Note] {
	return crmKind[model.Note, *model.Note]{
		param: notePathParam, noun: "Note", prefix: ids.Note, contacts: contacts, notModified: contacts,
		prepare: prepareNote, render: render,
		get: func(ctx context.Context, d *api.Deps, accountID, uuid string) (model.Note, error) {
			return storage(d).GetNote(ctx, accountID, uuid)
		},
		create: func(ctx context.Context, d *api.Deps, n model.Note) error { return storage(d).CreateNote(ctx, n) },
		update: func(ctx context.Context, d *api.Deps, n model.Note) error {
			_, err := storage(d).UpdateNote(ctx, n)
			return err
		},
		remove: func(ctx context.Context, d *api.Deps, n model.Note) error { return storage(d).DeleteNote(ctx, n) },
	}
}

var (
	customerNotes = noteKind(customerNoteJSON, false)
	entityNotes   = noteKind(entityNoteJSON, true)
)

// customerNoteJSON is the note of /v1/customer_notes, keys in ChartMogul's order.
func customerNoteJSON(n model.Note) jsonobj.Object {
	return noteJSON(n, nil)
}

// entityNoteJSON is the note of /v1/notes: a note made for a contact also names it
// (associated_object, associated_object_uuid).
func entityNoteJSON(n model.Note) jsonobj.Object {
	return noteJSON(n, associatedContact(n.ContactUUID))
}

func noteJSON(n model.Note, associated jsonobj.Object) jsonobj.Object {
	o := jsonobj.Object{{Key: "uuid", Value: n.UUID}, {Key: "customer_uuid", Value: n.CustomerUUID}}
	o = append(o, associated...)
	return append(o, jsonobj.Field{Key: "type", Value: n.Type}, jsonobj.Field{Key: "text", Value: n.Text},
		jsonobj.Field{Key: "call_duration", Value: n.CallDuration}, jsonobj.Field{Key: "author", Value: n.Author()},
		jsonobj.Field{Key: "created_at", Value: timefmt.Millis(n.CreatedAt)},
		jsonobj.Field{Key: "updated_at", Value: timefmt.Millis(n.UpdatedAt)})
}

// CreateCustomerNote is POST /v1/customer_notes: 201 with the note. A call without
// call_duration lasts 0 seconds; a note without author_email is the account's first
// team member's (docs/clients.md).
func CreateCustomerNote(d *api.Deps) apigw.Endpoint { return crmCreate(d, customerNotes) }

// GetCustomerNote is GET /v1/customer_notes/{note_uuid}.
func GetCustomerNote(d *api.Deps) apigw.Endpoint { return crmGet(d, customerNotes) }

// UpdateCustomerNote is PATCH /v1/customer_notes/{note_uuid}: author_email, text,
// call_duration, created_at; updated_at becomes now. type cannot change and is ignored,
// as are read-only fields clients echo back.
func UpdateCustomerNote(d *api.Deps) apigw.Endpoint { return crmUpdate(d, customerNotes) }

// DeleteCustomerNote is DELETE /v1/customer_notes/{note_uuid}: 200 {}.
func DeleteCustomerNote(d *api.Deps) apigw.Endpoint { return crmDelete(d, customerNotes) }

// CreateNote is POST /v1/notes: as a customer note, and the note may instead name a
// contact in associated_object_identifier (then it is the contact's customer's).
func CreateNote(d *api.Deps) apigw.Endpoint { return crmCreate(d, entityNotes) }

// GetNote is GET /v1/notes/{note_uuid}.
func GetNote(d *api.Deps) apigw.Endpoint { return crmGet(d, entityNotes) }

// UpdateNote is PATCH /v1/notes/{note_uuid}, as a customer note's.
func UpdateNote(d *api.Deps) apigw.Endpoint { return crmUpdate(d, entityNotes) }

// DeleteNote is DELETE /v1/notes/{note_uuid}: 200 {}.
func DeleteNote(d *api.Deps) apigw.Endpoint { return crmDelete(d, entityNotes) }

// prepareNote applies a note body: type (required on create, never changed after),
// text, call_duration, created_at, author_email (a team member; a create without it is
// the account's first team member's, and a null changes nothing: clients echo what
// they hold). A value of the wrong type is a 422 on its field.
func prepareNote(ctx context.Context, d *api.Deps, accountID string, body map[string]any, n *model.Note, create bool) error {
	if create {
		t, sent := body["type"]
		if !sent || t == nil {
			return apperr.MissingParam("type")
		}
		if n.Type, _ = t.(string); !model.ValidNoteType(n.Type) {
			return apperr.Unprocessable("type", "The type must be either \"note\" or \"call\".")
		}
	}
	if v, sent := body["text"]; sent {
		text, ok := v.(string)
		if !ok && v != nil {
			return apperr.Unprocessable("text", "The text must be a string.")
		}
		if len([]rune(text)) > model.MaxNoteTextLength {
			return apperr.Unprocessable("text", "The text is too long (maximum is %d characters).", model.MaxNoteTextLength)
		}
		n.Text = text
	}
	if v := body["call_duration"]; v != nil {
		dur, err := model.ParseCallDuration(v)
		if err != nil {
			return apperr.Unprocessable("call_duration", "The call duration %s.", err.Error())
		}
		n.CallDuration = dur
	}
	if v, sent := body["created_at"]; sent {
		raw, _ := v.(string)
		t, err := timefmt.Parse(raw)
		if err != nil || raw == "" {
			return apperr.Unprocessable("created_at", "The created_at value must be an ISO 8601 timestamp.")
		}
		n.CreatedAt = t
	}
	if err := noteAuthor(ctx, d, accountID, body["author_email"], n, create); err != nil {
		return err
	}
	n.Normalize()
	return nil
}

// noteAuthor attributes a note: to author_email's team member, or on create without
// one to the account's first team member (none: the note shows model.KeyAuthor).
func noteAuthor(ctx context.Context, d *api.Deps, accountID string, v any, n *model.Note, create bool) error {
	if v == nil {
		if !create {
			return nil
		}
		members, err := storage(d).ListMembers(ctx, accountID)
		if m, ok := model.FirstMember(members); ok {
			n.AuthorEmail, n.AuthorName = m.Email, m.Name
		}
		return err
	}
	email, _ := v.(string)
	m, err := api.TeamMember(ctx, d, accountID, strings.TrimSpace(email),
		apperr.Unprocessable("author_email", "The author_email must be the e-mail of a team member of the account."))
	if err != nil {
		return err
	}
	n.AuthorEmail, n.AuthorName = m.Email, m.Name
	return nil
}

// laterThan returns now, or a millisecond after prev if the clock has not moved past
// it, so that a bumped updated_at always shows as changed.
func laterThan(now, prev time.Time) time.Time {
	if !now.Truncate(time.Millisecond).After(prev.Truncate(time.Millisecond)) {
		return prev.Truncate(time.Millisecond).Add(time.Millisecond)
	}
	return now
}
