package keys

import "strconv"

// Entity types of the limits' counters (docs/architecture.md, "Limits per account").
const (
	TypeRequestWindow  = "request_window"
	TypeImportRecords  = "import_records_window"
	TypeImportInFlight = "import_in_flight"
)

// ExpiresAt is the attribute the table's time to live reads (Unix seconds): DynamoDB
// deletes an item some time after it passes.
const ExpiresAt = "expires_at"

// RequestWindow counts an account's API requests in one second (Unix seconds). Each
// window is its own partition, so a noisy account's counter shares no partition with
// its data, and an item only ever takes one second of writes.
func RequestWindow(accountID string, second int64) Key {
	return Key{PK: Partition(accountID, "RATE", strconv.FormatInt(second, 10)), SK: "RATE"}
}

// ImportRecordsWindow counts the records an account's json_imports accepted in one
// minute (Unix seconds / 60).
func ImportRecordsWindow(accountID string, minute int64) Key {
	return Key{PK: Partition(accountID, "IMPREC", strconv.FormatInt(minute, 10)), SK: "IMPREC"}
}

// ImportsInFlightPartition holds one marker per json_import of the account that may
// still be queued or processing; the intake counts them.
func ImportsInFlightPartition(accountID string) string { return Partition(accountID, "IMPFLIGHT") }

// ImportInFlight is the marker of one import (by its id) in ImportsInFlightPartition.
func ImportInFlight(accountID, importID string) Key {
	return Key{PK: ImportsInFlightPartition(accountID), SK: ImportInFlightPrefix + importID}
}

// ImportInFlightPrefix selects the markers within ImportsInFlightPartition.
const ImportInFlightPrefix = "IMP" + sep
