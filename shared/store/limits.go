package store

import (
	"context"
	"errors"
	"time"
)

// ErrThrottled: DynamoDB refused the request for the rate of its item or partition.
// On a limit's counter it means the account writes that counter far faster than any
// limit allows.
var ErrThrottled = errors.New("throttled")

// ErrQuotaExceeded: a conditional counter would pass its limit; nothing was added.
var ErrQuotaExceeded = errors.New("quota exceeded")

// ErrRevoked: the request's key was revoked or its account deleted, though the
// authorizer's cached answer still names the account.
var ErrRevoked = errors.New("key revoked or account deleted")

// RequestCount is one request to count against its account's second.
type RequestCount struct {
	AccountID string
	// KeyID is the key the authorizer found; requests that carry one are refused
	// (ErrRevoked) when that key was revoked or the account's counter is gone.
	KeyID  string
	Second int64 // Unix seconds
	// NewWindow hints that the caller has not counted in this second yet, so the
	// counter most likely still holds an earlier second.
	NewWindow bool
}

// ImportInFlight is the marker of a json_import that may still be queued or processing.
type ImportInFlight struct {
	AccountID, ImportID, DataSourceUUID, ExternalID string
	CreatedAt                                       time.Time
}

// LimitCounters are the counters behind the accounts' limits (docs/architecture.md,
// "Limits per account"). Every counter lives under the account's partitions; the
// windows of import records and the in-flight markers expire on their own (the table's
// time to live).
type LimitCounters interface {
	// CountRequest adds one request to the account's count of its second and returns
	// the count with it: one conditional write, two on a wrong NewWindow hint.
	CountRequest(ctx context.Context, c RequestCount) (int64, error)
	// CountImportRecords adds n records to the account's window of one minute unless
	// the window would pass limit (ErrQuotaExceeded, nothing added): one conditional
	// write.
	CountImportRecords(ctx context.Context, accountID string, minute int64, n, limit int) error
	// UncountImportRecords takes n records back from a window (an intake refused after
	// counting).
	UncountImportRecords(ctx context.Context, accountID string, minute int64, n int) error
	// ImportsInFlight lists the account's in-flight markers (one query).
	ImportsInFlight(ctx context.Context, accountID string) ([]ImportInFlight, error)
	// PutImportInFlight writes a marker; it expires by itself after ttl whatever happens.
	PutImportInFlight(ctx context.Context, m ImportInFlight, ttl time.Duration) error
	// DeleteImportInFlight removes a marker (its import finished, or never started).
	DeleteImportInFlight(ctx context.Context, accountID, importID string) error
	// ImportCustomersDone counts the customers of an import that have their outcome
	// recorded (a count query of its status items).
	ImportCustomersDone(ctx context.Context, accountID, importID string) (int, error)
}
