package keys

import "strconv"

// Entity types of the limits' counters (docs/architecture.md, "Limits per account").
const (
	TypeAccountRate    = "account_rate"
	TypeImportRecords  = "import_records_window"
	TypeImportInFlight = "import_in_flight"
)

// ExpiresAt is the attribute the table's time to live reads (Unix seconds): DynamoDB
// deletes an item some time after it passes.
const ExpiresAt = "expires_at"

// AccountRate is the account's request counter and the proof that the account and its
// keys are still live: created with the account and with each key, it holds the count
// of the current second and the ids of keys revoked lately. It has its own partition, so
// a noisy account's counter shares none with its data.
func AccountRate(accountID string) Key {
	return Key{PK: Partition(accountID, "RATE"), SK: "RATE"}
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
