package store

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/subsight/subsight/shared/model"
)

// CustomerFilter narrows a customer listing; empty fields do not filter.
type CustomerFilter struct {
	DataSourceUUID string
	ExternalID     string
	Status         string // normalised ("Past Due")
	System         string // billing system; "Custom" selects every API source
}

// Matches applies the filter to a customer read otherwise than through the listing.
func (f CustomerFilter) Matches(c model.Customer) bool {
	return (f.ExternalID == "" || c.ExternalID == f.ExternalID) &&
		(f.Status == "" || c.Status == f.Status) &&
		(f.DataSourceUUID == "" || slices.Contains(c.DataSourceUUIDs, f.DataSourceUUID)) &&
		(f.System == "" || (f.System == model.BillingSystemCustom && c.BillingSystemType == f.System) || slices.Contains(c.Systems, f.System))
}

// CustomerMetrics are the attributes of the customer item that the metrics own.
type CustomerMetrics struct {
	MRR           int64
	ARR           int64
	Status        string
	CustomerSince *time.Time // nil removes it (leads)
	AddTags       []string   // appended (the caller leaves out tags already there)
	// BillingCurrencies and ActiveQuantity feed the Metrics API's currency and
	// active_quantity filters (model.Customer).
	BillingCurrencies []string
	ActiveQuantity    int64
}

// ErrDuplicateEmail is returned when a contact e-mail is already used by another
// contact of the same customer.
var ErrDuplicateEmail = errors.New("contact e-mail already used in this customer")

// ContactFilter narrows a contact listing; empty fields do not filter.
type ContactFilter struct {
	CustomerUUID       string
	DataSourceUUID     string
	Email              string
	CustomerExternalID string
}

// ErrCustomerNotFound: the customer a note is written for does not exist.
var ErrCustomerNotFound = errors.New("customer not found")

// NoteFilter narrows a note listing; empty fields do not filter.
type NoteFilter struct {
	CustomerUUID string
	ContactUUID  string
	Type         string
	AuthorEmail  string
}

// Customers are the customer records, their external ids and the attributes the metrics own.
type Customers interface {
	// NextCustomerID draws the next integer id of the account's customers.
	NextCustomerID(ctx context.Context, accountID string) (int64, error)
	// CreateCustomer stores a new customer (with its id already drawn). It first
	// reserves the external id in its data source with a conditional put, then writes
	// the customer: two single-item writes cost half of a transaction. ErrConflict when
	// the external id is taken.
	CreateCustomer(ctx context.Context, c model.Customer) error
	// GetCustomer reads a customer of the account.
	GetCustomer(ctx context.Context, accountID, customerUUID string) (model.Customer, error)
	// SaveCustomer writes the new state of a customer read as old. It fails with
	// ErrConflict when the customer changed since it was read (the caller re-reads and
	// retries) and with ErrNotFound when it was deleted.
	SaveCustomer(ctx context.Context, old, c model.Customer) error
	// DeleteCustomer removes a customer with its contacts, e-mail index, contact e-mail
	// items and external id reservations. The customer item goes last, in one
	// transaction with its reservations, so a failure half-way leaves a customer that a
	// repeated DELETE removes.
	DeleteCustomer(ctx context.Context, c model.Customer) error
	// ListCustomers is one page of the account's customers in id order. The plain
	// listing and the external id filter are one Query; status, data source and system
	// filters are applied by DynamoDB as a filter on the same index.
	ListCustomers(ctx context.Context, accountID string, f CustomerFilter, limit int, start PageToken) (Page[model.Customer], error)
	// CustomersByEmail returns, in id order, every customer of the account whose e-mail
	// is email and, with withContacts, every customer with a contact of that e-mail.
	// An address matches few customers, so this reads the index partitions (one Query
	// each) and the matches (one BatchGetItem per 100) and pages in memory.
	CustomersByEmail(ctx context.Context, accountID, email string, withContacts bool) ([]model.Customer, error)
	// ListCustomersByEmail is one page, in id order, of the customers that f selects among
	// those CustomersByEmail finds; they are few, so they are paged in memory and Total is
	// known.
	ListCustomersByEmail(ctx context.Context, accountID, email string, withContacts bool, f CustomerFilter, limit int, start PageToken) (Page[model.Customer], error)
	// EachCustomer hands every customer of the account to fn, in no particular order
	// and one at a time, reading the listing's shards at once (eventually consistent
	// Queries of up to 1 MB); it stops at fn's first error. Only the customer's uuid,
	// id and the attributes the Metrics API's filters compare are filled in.
	EachCustomer(ctx context.Context, accountID string, fn func(model.Customer) error) error
	// CustomerUUIDByExternalID finds the customer holding an external id in a data source,
	// from the customers' uniqueness item (a consistent read). ErrNotFound when none.
	CustomerUUIDByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (string, error)
	// UpdateCustomerMetrics writes only the metrics attributes of a customer item read at
	// version, and bumps the version, so that a concurrent full-item save of the customer
	// (which checks the version) re-reads instead of restoring stale figures. ErrConflict
	// when the customer changed since it was read, ErrNotFound when it is gone.
	UpdateCustomerMetrics(ctx context.Context, accountID, customerUUID string, version int64, m CustomerMetrics) error
}

// Contacts are the customers' contacts.
type Contacts interface {
	// CreateContact stores a new contact and reserves its e-mail in its customer;
	// ErrDuplicateEmail when another contact of the customer has it.
	CreateContact(ctx context.Context, c model.Contact) error
	// SaveContact writes a new (old == nil) or changed contact. The e-mail reservation
	// moves with it in the same transaction. ErrDuplicateEmail for a taken e-mail,
	// ErrConflict when the contact changed since it was read, ErrNotFound when deleted.
	SaveContact(ctx context.Context, old *model.Contact, c model.Contact) error
	// GetContact reads a contact of the account.
	GetContact(ctx context.Context, accountID, contactUUID string) (model.Contact, error)
	// DeleteContact removes a contact and its e-mail reservation.
	DeleteContact(ctx context.Context, c model.Contact) error
	// MergeContacts saves into (read as oldInto) and deletes from, in one transaction;
	// into takes over from's e-mail reservation when it takes its e-mail.
	MergeContacts(ctx context.Context, oldInto, into, from model.Contact) error
	// CustomerContacts returns every contact of a customer (a customer has few).
	CustomerContacts(ctx context.Context, accountID, customerUUID string) ([]model.Contact, error)
	// ListContacts is one page of contacts, newest first: of one customer (GSI2) or of
	// the account (GSI1), with the other filters applied by DynamoDB.
	ListContacts(ctx context.Context, accountID string, f ContactFilter, limit int, start PageToken) (Page[model.Contact], error)
}

// Notes are the customers' notes and call logs.
type Notes interface {
	// CreateNote stores a note and its locator, in one transaction that checks the
	// customer exists. ErrCustomerNotFound when it does not.
	CreateNote(ctx context.Context, n model.Note) error
	// GetNote reads a note by uuid: the locator, then the note (consistent reads). A
	// deleted customer leaves locators behind; their notes are gone, so ErrNotFound.
	GetNote(ctx context.Context, accountID, noteUUID string) (model.Note, error)
	// UpdateNote writes the changed fields of a note read earlier (n holds the new
	// values); ErrNotFound when it was deleted meanwhile. It returns the stored note.
	UpdateNote(ctx context.Context, n model.Note) (model.Note, error)
	// DeleteNote removes a note and its locator; ErrNotFound when already gone.
	DeleteNote(ctx context.Context, n model.Note) error
	// ListNotes reads one page of notes, newest first (by created_at, then uuid): one
	// customer's through GSI2, the account's through GSI1; type and author are filters.
	ListNotes(ctx context.Context, accountID string, f NoteFilter, limit int, start PageToken) (Page[model.Note], error)
	// CustomerNotes reads every note of a customer (its partition).
	CustomerNotes(ctx context.Context, accountID, customerUUID string) ([]model.Note, error)
}
