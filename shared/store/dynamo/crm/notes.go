package crm

import (
	"context"
	"strings"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// noteItem is a note as stored: a CRM record (keys.Notes' layout, crm_records.go); see
// docs/data-model.md.
type noteItem struct {
	recordHead
	Type         string `dynamodbav:"type"`
	Text         string `dynamodbav:"text"`
	CallDuration int    `dynamodbav:"call_duration"`
	AuthorEmail  string `dynamodbav:"author_email,omitempty"`
	AuthorName   string `dynamodbav:"author_name,omitempty"`
	AuthorKey    string `dynamodbav:"author_key,omitempty"` // lower-case e-mail, for the filter
}

func (it noteItem) note() model.Note {
	return model.Note{RecordMeta: it.meta(), Type: it.Type, Text: it.Text, CallDuration: it.CallDuration,
		AuthorEmail: it.AuthorEmail, AuthorName: it.AuthorName}
}

func newNoteItem(n model.Note) noteItem {
	return noteItem{recordHead: newRecordHead(keys.Notes, n.RecordMeta), Type: n.Type, Text: n.Text,
		CallDuration: n.CallDuration, AuthorEmail: n.AuthorEmail, AuthorName: n.AuthorName,
		AuthorKey: strings.ToLower(n.AuthorEmail)}
}

// CreateNote stores a note and its locator, in one transaction that checks the
// customer exists. store.ErrCustomerNotFound when it does not.
func (s *Store) CreateNote(ctx context.Context, n model.Note) error {
	it := newNoteItem(n)
	return s.createRecord(ctx, keys.Notes, it.recordHead, it)
}

// GetNote reads a note by uuid: the locator, then the note (consistent reads). A
// deleted customer leaves locators behind; their notes are gone, so store.ErrNotFound.
func (s *Store) GetNote(ctx context.Context, accountID, noteUUID string) (model.Note, error) {
	it, err := getRecord[noteItem](ctx, s, keys.Notes, accountID, noteUUID)
	return it.note(), err
}

// UpdateNote writes a note read earlier with its new fields (a changed created_at moves
// it in the listings); store.ErrNotFound when it was deleted meanwhile. It returns the stored
// note.
func (s *Store) UpdateNote(ctx context.Context, n model.Note) (model.Note, error) {
	it := newNoteItem(n)
	if err := s.replaceRecord(ctx, it); err != nil {
		return model.Note{}, err
	}
	return it.note(), nil
}

// DeleteNote removes a note and its locator; store.ErrNotFound when already gone.
func (s *Store) DeleteNote(ctx context.Context, n model.Note) error {
	return s.deleteRecord(ctx, keys.Notes, newNoteItem(n).recordHead)
}

// CustomerNotes reads every note of a customer (its partition).
func (s *Store) CustomerNotes(ctx context.Context, accountID, customerUUID string) ([]model.Note, error) {
	return customerRecords(ctx, s, keys.Notes, accountID, customerUUID, noteItem.note)
}

// MoveNote re-homes a note in into's partition and points its locator there, then
// drops the old copy, in one transaction.
func (s *Store) MoveNote(ctx context.Context, n model.Note, intoUUID string) error {
	from := newNoteItem(n)
	n.CustomerUUID = intoUUID
	to := newNoteItem(n)
	return s.moveRecord(ctx, keys.Notes, from.recordHead, to.recordHead, to)
}
