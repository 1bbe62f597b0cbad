package store

import (
	"context"
	"errors"
	"time"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
)

// ErrImportExists: the data source already has an import with that external id (and
// another payload, or one already queued).
var ErrImportExists = errors.New("import external id already used")

// ImportedCustomerUUID is the uuid the import gives a customer it creates: derived
// from the data source and external id, so that a retried message that crashed
// between the reservation and the customer item completes the same customer.
func ImportedCustomerUUID(accountID, dsUUID, externalID string) string {
	return ids.Customer + model.DerivedUUID("customer", accountID, dsUUID, externalID)
}

// ExternalRef names a customer or a plan by data source and external id.
type ExternalRef struct {
	DataSourceUUID string
	ExternalID     string
}

// ImportStateQuery lists what a round of the import worker reads of one account.
type ImportStateQuery struct {
	AccountID string
	Customers []ExternalRef
	// EventExternalIDs are the external ids of the events, whose claims (an external id
	// a PATCH moved to another event) are read too.
	EventExternalIDs []ExternalRef
	Plans            []ExternalRef
	// Owned are the records each customer's part names, read only for a customer that
	// exists or whose external id is reserved. A new customer holds none of them; one
	// that another customer holds is found by its claim instead (a conditional write
	// that fails, after which the customer is applied again from a full read).
	Owned []OwnedRecordsQuery
}

// OwnedRecordsQuery is what one customer's part names of the records it may hold.
type OwnedRecordsQuery struct {
	Customer      ExternalRef
	Invoices      []string // uuids
	Subscriptions []string // uuids
	Events        []int64
	// Records are the uuids of line items and transactions with an external id, whose
	// locators tell which invoice already holds that external id.
	Records []string
}

// ImportState is what ReadImportState found; absent records are absent from the maps.
type ImportState struct {
	Customers     map[ExternalRef]ImportedCustomerState
	Invoices      map[string]model.Invoice
	Subscriptions map[string]model.Subscription
	Events        map[int64]model.SubscriptionEvent
	// EventClaims maps an external id to the event a PATCH gave it (read with it).
	EventClaims map[ExternalRef]int64
	Plans       map[ExternalRef]model.Plan
	// RecordHolders maps a line item or transaction uuid (of ImportStateQuery.Records)
	// to the invoice that holds it (or is about to: a claim younger than
	// RecordClaimInFlight whose invoice is not written yet).
	RecordHolders map[string]string
	// StaleHolders maps a record uuid whose locator holds nothing any more (its invoice
	// is gone, or no longer holds the record) to the invoice the locator names: a
	// claim may take the locator over only from that invoice (RecordLocator.Replaces).
	StaleHolders map[string]string
}

// RecordClaimInFlight is how long a line item's or transaction's locator whose
// invoice does not exist yet still holds its external id: the claim is written
// before the invoice, and no import step takes nearly as long between the two.
const RecordClaimInFlight = 5 * time.Minute

// RecordLocator says which invoice holds a line item or transaction: they are packed in
// their invoice (docs/data-model.md), and the locator is what finds them by uuid (or,
// through their derived uuid, by data source and external id).
type RecordLocator struct {
	AccountID   string
	UUID        string // li_… or tr_…
	InvoiceUUID string
	// Replaces is the invoice a stale locator names (ImportState.StaleHolders), which
	// ClaimRecordLocators may overwrite; "" when the locator must be absent or ours.
	Replaces string
	// At is when the locator was written (RecordClaimInFlight).
	At time.Time
}

// ImportedCustomerState is one customer external id as the import finds it.
type ImportedCustomerState struct {
	// Reserved: the external id is taken (by UUID). When it is not, UUID is the uuid
	// the import would give the new customer (ImportedCustomerUUID).
	Reserved bool
	UUID     string
	// Customer is nil while the customer item does not exist (a new customer, or one
	// whose creation crashed after the reservation).
	Customer *model.Customer
	Index    BillingIndex
}

// CustomerReservation is a customer external id of a data source to take for a
// customer uuid.
type CustomerReservation struct {
	AccountID, DataSourceUUID, ExternalID, CustomerUUID string
}

// ImportedRecords are the items a round of the import worker writes. Ownership
// (an invoice or subscription external id of another customer) was checked on the
// state read in the same round, so the writes are plain batch puts.
type ImportedRecords struct {
	// NewCustomers are created: their e-mail index entries go with the records, the
	// customer items last, so that a retry after a crash in between still finds the
	// customer new and writes the rest again.
	NewCustomers []model.Customer
	// NewIndexes are the billing indexes of customers whose external id this round
	// reserved: nobody else can have written them, so they need no condition.
	NewIndexes    []BillingIndex
	Invoices      []model.Invoice
	Subscriptions []model.Subscription
	Events        []model.SubscriptionEvent
}

// ImportCustomerStatusWrite is one customer's outcome of one import.
type ImportCustomerStatusWrite struct {
	AccountID string
	ImportID  string
	Status    model.ImportCustomerStatus
}

// Imports are the json_imports records and the import worker's reads and writes.
type Imports interface {
	// CreateImport records a new import unless its external id is taken in the data
	// source (a conditional put), then the locator of its id. An unfinished record of the
	// same payload (an intake that failed half-way and is retried) is returned instead,
	// its locator written again, so the retry can finish it; anything else is
	// ErrImportExists. Two plain writes instead of a transaction: half the write units,
	// and the locator is only needed once the intake answers.
	CreateImport(ctx context.Context, imp model.Import) (model.Import, error)
	// GetImport reads an import by its external id.
	GetImport(ctx context.Context, accountID, dsUUID, externalID string) (model.Import, error)
	// GetImportByID reads an import by the id the API returned.
	GetImportByID(ctx context.Context, accountID, dsUUID, id string) (model.Import, error)
	// FinishImportIntake stores the plans' outcome and marks the import queued.
	FinishImportIntake(ctx context.Context, imp model.Import, plans model.KindStatus, now time.Time) error
	// ReserveCustomerIDs draws n integer customer ids at once (one write for a whole
	// import) and returns the last; the ids are last-n+1 .. last. Ids reserved for
	// customers that turn out to exist are simply never used.
	ReserveCustomerIDs(ctx context.Context, accountID string, n int) (int64, error)
	// PutImportCustomerStatus records how one customer's records went. A success never
	// overwrites a recorded failure of the same message's last attempt and vice versa
	// is harmless: each message writes its customer's item once, at its end.
	PutImportCustomerStatus(ctx context.Context, accountID, importID string, st model.ImportCustomerStatus) error
	// PutImportCustomerStatuses records the outcome of several customers at once.
	PutImportCustomerStatuses(ctx context.Context, sts []ImportCustomerStatusWrite) error
	// ImportCustomerOutcome reads one customer's status in an import (model.RecordsFailed,
	// or the status of its applied records); ErrNotFound while it has none.
	ImportCustomerOutcome(ctx context.Context, accountID, importID, customerExternalID string) (string, error)
	// ImportCustomerStatuses reads every customer entry recorded so far for an import.
	ImportCustomerStatuses(ctx context.Context, accountID, importID string) ([]model.ImportCustomerStatus, error)
	// ListImports reads one page of a data source's json_imports records, in the order of
	// their external ids.
	ListImports(ctx context.Context, accountID, dsUUID string, limit int, start PageToken) (Page[model.Import], error)
	// PutRecordLocators writes the locators of new line items and transactions (25 per
	// request). The import writes them before the invoices that hold them, so a crash in
	// between leaves a locator of a record not yet stored, never a stored record without
	// its locator.
	PutRecordLocators(ctx context.Context, ls []RecordLocator) error
	// ClaimRecordLocators takes the external ids of line items and transactions with
	// one conditional PutItem per locator (absent, already naming the same invoice, or
	// still naming the stale invoice read): one error per locator, ErrOwnedElsewhere
	// when another invoice got there first.
	ClaimRecordLocators(ctx context.Context, ls []RecordLocator) []error
	// ClaimSubscriptionEvents writes events that are new or already the customer's (one
	// conditional PutItem each, in parallel): one error per event, ErrOwnedElsewhere
	// when another customer holds the event's id.
	ClaimSubscriptionEvents(ctx context.Context, es []model.SubscriptionEvent) []error
	// ReadImportState reads, in up to three rounds of BatchGetItem: the reservations of the
	// customers' external ids (with the customers and indexes a new one would have) and
	// the plan and event external ids; the records of the customers that exist or are
	// reserved (ImportStateQuery.Owned); then the other customers, billing indexes and
	// records they name and the plans themselves.
	ReadImportState(ctx context.Context, q ImportStateQuery) (ImportState, error)
	// ReserveImportedCustomers takes customer external ids of a data source for their
	// customers with conditional puts (never read-then-write), so the import and POST
	// /v1/customers can never create the same customer twice; taking one again for the
	// same customer (a retry) succeeds. Each is taken alone: ErrConflict for an id
	// another customer holds. The result holds each reservation's outcome, in order.
	ReserveImportedCustomers(ctx context.Context, rs []CustomerReservation) []error
	// PutImportedRecords writes the records with BatchWriteItem, 25 items per request,
	// the requests of one step in parallel.
	PutImportedRecords(ctx context.Context, r ImportedRecords) error
}

// LaneImport is one import in its account's import lane: its Total customer messages
// are stored in chunks under ChunkPrefix, and Next is the first one not yet sent to the
// import queue. Seq orders the account's imports (docs/architecture.md, "Lanes").
type LaneImport struct {
	Seq         int64
	ImportID    string
	ChunkPrefix string
	Total, Next int
}

// Lane is an account's import lane: its customer messages sent to the import queue and
// applied (or failed for good) so far, and its imports with messages left to send,
// oldest first.
type Lane struct {
	Sent, Applied int64
	Imports       []LaneImport
}

// ImportLanes keep the accounts' import lanes, which the feeder reads and advances.
type ImportLanes interface {
	// AddLaneImport puts the import rec in its account's lane and marks rec as laned, at
	// once: an import marked before (an intake retried) is left as it is, whether still in
	// the lane or already fed, so its messages are never counted as sent twice.
	AddLaneImport(ctx context.Context, rec model.Import, imp LaneImport) error
	// ReadLane reads the account's lane (one Query).
	ReadLane(ctx context.Context, accountID string) (Lane, error)
	// AdvanceLane records that the messages imp.Next .. next-1 were sent: the import's
	// position moves to next (the import leaves the lane at its end) and the lane's sent
	// count grows, in one transaction conditional on the position read (ErrConflict
	// otherwise, so a redelivered feed never counts a send twice).
	AdvanceLane(ctx context.Context, accountID string, imp LaneImport, next int) error
	// AddLaneApplied adds n to the account's applied count.
	AddLaneApplied(ctx context.Context, accountID string, n int64) error
}
