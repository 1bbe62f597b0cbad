package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits are an account's guard rails on a deployment that many accounts share
// (docs/architecture.md, "Limits per account"). A zero field means the default.
type Limits struct {
	// RequestsPerSecond bounds the account's API requests in each second, all of them
	// counted (ChartMogul's 40).
	RequestsPerSecond int
	// ImportsInFlight bounds the account's json_imports that are queued or processing.
	ImportsInFlight int
	// ImportRecordsPerMinute bounds the records (customers, plans, invoices,
	// subscription events) that json_imports accept in each minute.
	ImportRecordsPerMinute int
}

// Defaults of the limits: ChartMogul's request rate; import bounds generous enough
// for a large backfill while keeping one account from filling the import lane alone.
const (
	DefaultRequestsPerSecond      = 40
	DefaultImportsInFlight        = 50
	DefaultImportRecordsPerMinute = 1_000_000
)

// LimitNames are the limits' names, as the admin command takes them.
var LimitNames = []string{"requests_per_second", "imports_in_flight", "import_records_per_minute"}

// Effective fills every unset limit with its default.
func (l Limits) Effective() Limits {
	if l.RequestsPerSecond <= 0 {
		l.RequestsPerSecond = DefaultRequestsPerSecond
	}
	if l.ImportsInFlight <= 0 {
		l.ImportsInFlight = DefaultImportsInFlight
	}
	if l.ImportRecordsPerMinute <= 0 {
		l.ImportRecordsPerMinute = DefaultImportRecordsPerMinute
	}
	return l
}

// maxLimit keeps a limit inside what every counter and header holds comfortably.
const maxLimit = 1_000_000_000

// Set changes one limit by name; the value must be a positive integer.
func (l *Limits) Set(name, value string) error {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > maxLimit || strconv.Itoa(n) != value {
		return fmt.Errorf("%s must be a positive integer up to %d, not %q", name, maxLimit, value)
	}
	switch name {
	case "requests_per_second":
		l.RequestsPerSecond = n
	case "imports_in_flight":
		l.ImportsInFlight = n
	case "import_records_per_minute":
		l.ImportRecordsPerMinute = n
	default:
		return fmt.Errorf("unknown limit %q (one of %s)", name, strings.Join(LimitNames, ", "))
	}
	return nil
}
