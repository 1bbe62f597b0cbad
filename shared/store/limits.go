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

// ImportInFlight is the marker of a json_import that may still be queued or processing.
type ImportInFlight struct {
	AccountID, ImportID, DataSourceUUID, ExternalID string
	CreatedAt                                       time.Time
}

// LimitCounters are the counters behind the accounts' limits (docs/architecture.md,
// "Limits per account"). Every counter lives under the account's partitions and
// expires on its own (the table's time to live).
type LimitCounters interface {
	// CountRequest adds one request to the account's window of one second (Unix
	// seconds) and returns the window's count with it: one write.
	CountRequest(ctx context.Context, accountID string, second int64) (int64, error)
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
