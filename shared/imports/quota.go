package imports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// The quotas of an account's json_imports (docs/architecture.md, "Limits per
// account"): imports in flight, and records accepted per minute. Both are checked after
// the payload is validated and before the import record is written; a refusal writes
// nothing, so the same body can be sent again later.

// QuotaError refuses an import for a quota; the API answers 429 with Retry-After, or
// 422 when the import could never pass (Split).
type QuotaError struct {
	Message    string
	RetryAfter time.Duration
	// Split: the import alone has more records than the account may import in a
	// minute; it must be split.
	Split bool
}

func (e *QuotaError) Error() string { return e.Message }

const (
	// inFlightTTL is the longest a marker counts: the time to live deletes it then,
	// whatever happened to its import.
	inFlightTTL = 24 * time.Hour
	// intakeGrace is how long an import may stay unqueued (its intake under way or
	// interrupted) and still count; an intake takes seconds, and a client resumes an
	// interrupted one by sending the body again.
	intakeGrace = 15 * time.Minute
	// inFlightRetry is the Retry-After of a refusal for imports in flight: imports take
	// minutes, so sooner would only be refused again.
	inFlightRetry = time.Minute
)

// admission is what the quota took for an import, to give back when the intake stops
// before the import record exists.
type admission struct {
	accountID, importID string
	minute              int64
	records             int
	marker              bool // this intake wrote the in-flight marker
}

// admit checks both quotas for an import of records records and takes its share.
func (p *Pipeline) admit(ctx context.Context, acc model.Account, ds model.DataSource, importID, externalID string, records int) (*admission, error) {
	limits := acc.Limits.Effective()
	now := p.Now()
	inFlight, mine, err := p.importsInFlight(ctx, acc.ID, importID, limits.ImportsInFlight, now)
	if err != nil {
		return nil, err
	}
	if inFlight >= limits.ImportsInFlight {
		return nil, &QuotaError{RetryAfter: inFlightRetry, Message: fmt.Sprintf(
			"The account has %d json_imports queued or processing, its limit; send this one again once one of them has completed", inFlight)}
	}
	if records > limits.ImportRecordsPerMinute {
		return nil, &QuotaError{Split: true, Message: fmt.Sprintf(
			"The import has %d records, more than the account's limit of %d per minute; split it into several imports", records, limits.ImportRecordsPerMinute)}
	}
	minute := now.Unix() / 60
	if err := p.Store.CountImportRecords(ctx, acc.ID, minute, records, limits.ImportRecordsPerMinute); err != nil {
		if errors.Is(err, store.ErrQuotaExceeded) || errors.Is(err, store.ErrThrottled) {
			return nil, &QuotaError{RetryAfter: time.Unix((minute+1)*60, 0).Sub(now), Message: fmt.Sprintf(
				"The account's json_imports have reached its limit of %d records per minute; send this one again in the next minute", limits.ImportRecordsPerMinute)}
		}
		return nil, err
	}
	a := &admission{accountID: acc.ID, importID: importID, minute: minute, records: records}
	if !mine {
		err := p.Store.PutImportInFlight(ctx, store.ImportInFlight{AccountID: acc.ID, ImportID: importID,
			DataSourceUUID: ds.UUID, ExternalID: externalID, CreatedAt: now}, inFlightTTL)
		if err != nil {
			p.release(ctx, a)
			return nil, err
		}
		a.marker = true
	}
	return a, nil
}

// release gives back what admit took (the intake stopped before its import record
// existed): best effort, logged, since the caller already has an error to answer.
func (p *Pipeline) release(ctx context.Context, a *admission) {
	if err := p.Store.UncountImportRecords(ctx, a.accountID, a.minute, a.records); err != nil && !errors.Is(err, store.ErrNotFound) {
		slog.ErrorContext(ctx, "give back import records", "account_id", a.accountID, "error", err.Error())
	}
	if a.marker {
		if err := p.Store.DeleteImportInFlight(ctx, a.accountID, a.importID); err != nil {
			slog.ErrorContext(ctx, "remove import marker", "account_id", a.accountID, "error", err.Error())
		}
	}
}

// importsInFlight counts the account's other imports still queued or processing, and
// tells whether importID already has a marker (a retried intake). Below the limit the
// markers alone answer (one query); only when they reach it is each one checked, oldest
// first, and the markers of finished or abandoned imports deleted, so that a marker
// never outlives its import for long whatever happened to the intake or the workers.
func (p *Pipeline) importsInFlight(ctx context.Context, accountID, importID string, limit int, now time.Time) (int, bool, error) {
	markers, err := p.Store.ImportsInFlight(ctx, accountID)
	if err != nil {
		return 0, false, err
	}
	mine := slices.ContainsFunc(markers, func(m store.ImportInFlight) bool { return m.ImportID == importID })
	markers = slices.DeleteFunc(markers, func(m store.ImportInFlight) bool { return m.ImportID == importID })
	if len(markers) < limit {
		return len(markers), mine, nil
	}
	slices.SortFunc(markers, func(a, b store.ImportInFlight) int { return a.CreatedAt.Compare(b.CreatedAt) })
	live := 0
	for _, m := range markers {
		inFlight, err := p.stillInFlight(ctx, m, now)
		if err != nil {
			return 0, false, err
		}
		if inFlight {
			live++
			continue
		}
		if err := p.Store.DeleteImportInFlight(ctx, accountID, m.ImportID); err != nil {
			return 0, false, err
		}
	}
	return live, mine, nil
}

// stillInFlight tells whether a marker's import is queued or processing: an intake
// under way (no record yet, or not queued yet) within intakeGrace, or a queued import
// with customers still to do.
func (p *Pipeline) stillInFlight(ctx context.Context, m store.ImportInFlight, now time.Time) (bool, error) {
	imp, err := p.Store.GetImport(ctx, m.AccountID, m.DataSourceUUID, m.ExternalID)
	if errors.Is(err, store.ErrNotFound) {
		return now.Sub(m.CreatedAt) < intakeGrace, nil
	}
	if err != nil {
		return false, err
	}
	if imp.ID != m.ImportID {
		return false, nil // the data source was purged and the external id used again
	}
	if !imp.Queued {
		return now.Sub(m.CreatedAt) < intakeGrace, nil
	}
	done, err := p.Store.ImportCustomersDone(ctx, m.AccountID, m.ImportID)
	if err != nil {
		return false, err
	}
	return done < imp.Customers, nil
}

// payloadRecords counts the records of a payload, every kind alike.
func payloadRecords(pl model.ImportPayload) int {
	return len(pl.Customers) + len(pl.Plans) + len(pl.Invoices) + len(pl.LineItems) + len(pl.Transactions) + len(pl.Events)
}
