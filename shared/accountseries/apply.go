package accountseries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	// The Lambda runtime (provided.al2023) has no zone database: without this every
	// account calendar would silently fall back to UTC.
	_ "time/tzdata"

	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// CustomerAttrs are the customer fields the series and activities need besides the
// engine result.
type CustomerAttrs struct {
	UUID           string
	Name           string
	ExternalID     string
	DataSourceUUID string
	Country        string // ISO 3166-1 alpha-2; other values only count in unfiltered series
	// PlanExternalIDs maps plan uuids to external ids (the activities'
	// plan-external-id); a plan missing here shows an empty external id.
	PlanExternalIDs map[string]string
}

// Series keeps the account series and activity log.
type Series struct{ store store.SeriesStorage }

// New returns the series kept in st.
func New(st store.SeriesStorage) *Series { return &Series{store: st} }

// Apply makes the account's series and activity log reflect the customer's result
// (nil = no movements at all), in the read copy. It is idempotent and safe to retry
// after any failure.
func (s *Series) Apply(ctx context.Context, accountID string, result *engine.Result, c CustomerAttrs) error {
	if c.UUID == "" {
		return errors.New("accountseries: customer uuid is required")
	}
	acc, err := s.store.GetAccount(ctx, accountID)
	if err != nil {
		return fmt.Errorf("accountseries: read account: %w", err)
	}
	_, errs := s.ApplyBatch(ctx, acc, 0, []Change{{Result: result, Attrs: c}})
	return errs[0]
}

// Remove takes a deleted customer out of the series and the activity log.
func (s *Series) Remove(ctx context.Context, accountID, customerUUID string) error {
	if err := s.Apply(ctx, accountID, nil, CustomerAttrs{UUID: customerUUID}); err != nil {
		return err
	}
	st, err := s.store.GetSeriesRecord(ctx, accountID, customerUUID)
	if err != nil || !st.Exists || len(st.Cells) > 0 || len(st.Acts) > 0 || len(st.Pending) > 0 || !st.ActsDone {
		return err
	}
	// A record changed meanwhile stays: its customer contributes again.
	return s.store.DeleteSeriesRecord(ctx, accountID, customerUUID, st.Version)
}

// Fold moves what the bulk shards of parts hold into the read copy (ApplyBatch
// returns them): until then metrics requests do not see it.
func (s *Series) Fold(ctx context.Context, accountID string, parts []store.SeriesShardPart) error {
	return s.store.FoldSeries(ctx, accountID, parts)
}

// Calendar is the account's time zone and week start; an unknown zone falls back to UTC
// (the account validation never stores one).
func Calendar(acc model.Account) series.Calendar {
	loc, err := time.LoadLocation(acc.TimeZone)
	if err != nil || acc.TimeZone == "" {
		loc = time.UTC
	}
	week := time.Monday
	if acc.WeekStartOn == "sunday" {
		week = time.Sunday
	}
	return series.Calendar{Location: loc, WeekStart: week}
}

// seriesCustomer is what the series take from a result: its real movements and
// exchange-rate impacts (scheduled ones are committed MRR, not yet real).
func seriesCustomer(r *engine.Result, c CustomerAttrs) series.Customer {
	out := series.Customer{UUID: c.UUID, Country: c.Country}
	if r == nil {
		return out
	}
	for _, m := range r.Movements {
		if !m.Scheduled {
			out.Movements = append(out.Movements, m)
		}
	}
	for _, f := range r.ExchangeRateImpacts {
		if !f.Scheduled {
			out.ExchangeRateImpacts = append(out.ExchangeRateImpacts, f)
		}
	}
	return out
}

// finishPending adds every pending chunk to the buckets of shard, each exactly once.
func (s *Series) finishPending(ctx context.Context, accountID string, c CustomerAttrs, st store.SeriesRecord, shard int) error {
	for _, id := range sortedKeys(st.Pending) {
		if err := s.store.AddSeriesChunk(ctx, accountID, c.UUID, shard, id, st.Pending[id]); err != nil {
			return err
		}
	}
	return nil
}

// cellsLayout names what customerCells stores (version 2: plan-combination segments;
// 3: exchange-rate impacts); changing it re-buckets every customer on its next
// application.
const cellsLayout = 3

// versionOf hashes everything the stored state depends on (impacts: the real
// exchange-rate impacts, none for a customer billed in the account currency).
func versionOf(cal series.Calendar, c CustomerAttrs, ms []engine.Movement, acts []activity, impacts ...engine.ExchangeRateImpact) string {
	b, _ := json.Marshal(struct {
		Layout    int
		Zone      string
		WeekStart time.Weekday
		Country   string
		Movements []engine.Movement
		Impacts   []engine.ExchangeRateImpact `json:",omitempty"`
		Acts      []string
	}{cellsLayout, cal.Location.String(), cal.WeekStart, c.Country, ms, impacts, activityHashes(acts)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
