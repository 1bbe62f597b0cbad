package store

import (
	"context"
	"errors"
	"time"

	"github.com/subsight/subsight/shared/model"
)

// The account series: package accountseries computes them; this is what it keeps.
// The bucket items of a segment only ever have numbers added to them (WriteSeriesBatch,
// AddSeriesChunk), in its read copy or in a bulk shard that FoldSeries later moves into
// the copy; a customer's SeriesRecord says what it added.

// ErrSeriesChanged reports a customer whose series record, or the state guarding it,
// another recomputation changed meanwhile: nothing of that customer was written, and it
// must be recomputed again from its records (they may have changed too).
var ErrSeriesChanged = errors.New("the customer's series record changed concurrently")

// SeriesStorage is what the account series keep in the table.
type SeriesStorage interface {
	GetAccount(ctx context.Context, accountID string) (model.Account, error)

	// GetSeriesRecord reads a customer's record (Exists false when there is none).
	GetSeriesRecord(ctx context.Context, accountID, customerUUID string) (SeriesRecord, error)
	// GetSeriesRecords reads several customers' records, by customer uuid (those
	// without one left out).
	GetSeriesRecords(ctx context.Context, accountID string, customerUUIDs []string) (map[string]SeriesRecord, error)
	// ReplaceSeriesRecord writes next over old, failing with ErrSeriesChanged when the
	// record changed since old was read or a chunk of old is still pending.
	ReplaceSeriesRecord(ctx context.Context, accountID, customerUUID string, old, next SeriesRecord) error
	// WriteSeriesBatch writes records (each only over the record read, with its
	// guard) and adds adds to the buckets of shard, all or nothing; conflicts are the
	// positions of the records whose record or guard failed (then nothing is written).
	WriteSeriesBatch(ctx context.Context, accountID string, shard int, records []SeriesRecordWrite, adds []SeriesBucketAdd) (conflicts []int, err error)
	// AddSeriesChunk adds a pending chunk to the buckets of shard and removes it from
	// the record, atomically and only while the chunk is pending.
	AddSeriesChunk(ctx context.Context, accountID, customerUUID string, shard int, chunkID string, adds []SeriesBucketAdd) error
	// FoldSeries moves what the bulk shards of parts hold into the read copy, shard 0.
	FoldSeries(ctx context.Context, accountID string, parts []SeriesShardPart) error
	// MarkSeriesActivitiesDone records that the activity log matches version.
	MarkSeriesActivitiesDone(ctx context.Context, accountID, customerUUID, version string) error
	// DeleteSeriesRecord deletes the record if it still has version.
	DeleteSeriesRecord(ctx context.Context, accountID, customerUUID, version string) error
	// WriteActivities puts a customer's activities and deletes others by sort key.
	WriteActivities(ctx context.Context, accountID, customerUUID string, put []Activity, drop []string) error

	// SeriesWindow is what one metrics request reads of a segment's read copy: the
	// bucket items with the sort keys sks (absent ones left out) and those whose sort
	// keys lie in [from, to].
	SeriesWindow(ctx context.Context, accountID, segment string, sks []string, from, to string) (points, window []SeriesBucket, err error)
	// SeriesBucketsBetween reads the bucket items whose sort keys lie in [from, to]: the
	// read copy's, and the sum of the bulk shards' not folded yet.
	SeriesBucketsBetween(ctx context.Context, accountID, segment, from, to string) (copied, unfolded []SeriesBucket, err error)
	// SeriesBucketsWithPrefix reads the read copy's bucket items whose sort keys start
	// with prefix.
	SeriesBucketsWithPrefix(ctx context.Context, accountID, segment, prefix string) ([]SeriesBucket, error)

	// SeriesCells reads the contributions (SeriesRecord.Cells) of some customers, by
	// customer uuid; customers without a record are left out.
	SeriesCells(ctx context.Context, accountID string, customerUUIDs []string) (map[string]map[string]int64, error)

	// SeriesBucketExists reads (consistently) whether a bucket item exists.
	SeriesBucketExists(ctx context.Context, accountID, segment, sk string) (bool, error)
	// PutSeries writes records, activities and whole bucket items with plain puts.
	PutSeries(ctx context.Context, accountID string, records map[string]SeriesRecord, acts []Activity, buckets []SeriesBucketAdd) error
}

// SeriesStore hands out the storage of the account series (beside Store, which does
// not name the series).
type SeriesStore interface {
	// Series is the adapter of the account series on this store.
	Series() SeriesStorage
}

// SeriesRecord is a customer's record of what it has added to the series and the
// activity log.
type SeriesRecord struct {
	Exists  bool
	Version string
	// Cells is the customer's contribution: numbers added to bucket attributes, keyed
	// by a cell key of the series' own (segment, sort key and attribute).
	Cells    map[string]int64
	Pending  map[string][]SeriesBucketAdd // chunk id -> additions not yet made to the buckets
	Acts     map[string]string            // activity sort key -> content hash, as written (or being written)
	ActsPrev map[string]string            // activities possibly stored before Acts; "" hash = unknown content
	ActsDone bool
	// Shard is where the customer's last change went: 0, the read copy, or a bulk
	// shard that a fold empties into it.
	Shard int
}

// SeriesBucketAdd is numbers to add to attributes of one bucket item of a segment. The
// JSON names are those of the pending chunks stored in the customer's record.
type SeriesBucketAdd struct {
	Segment string           `json:"g"`
	SK      string           `json:"k"`
	Add     map[string]int64 `json:"a"`
}

// SeriesRecordWrite replaces a customer's record Old (as read) with Next (nil: the
// record stays), together with Guard, in the same transaction.
type SeriesRecordWrite struct {
	CustomerUUID string
	Old          SeriesRecord
	Next         *SeriesRecord
	Guard        SeriesGuard
	// ReadAt is when the writer began to read what Next is computed from: a record
	// written since then was written from fresher inputs, and the write fails.
	ReadAt time.Time
}

// SeriesShardPart is what a fold moves: the segments a bulk shard holds.
type SeriesShardPart struct {
	Shard    int
	Segments []string
}

// SeriesBucket is one bucket item as read: its sort key and its numbers.
type SeriesBucket struct {
	SK     string
	Values map[string]int64
}

// SeriesGuard is what a write of a customer's series record carries of the customer's
// metrics state (the recomputation's), in the same transaction, so that a
// recomputation another one overtook writes nothing: Metrics.MetricsStateCommit and
// SeriesStateCheck make them; the zero guard adds nothing.
type SeriesGuard struct {
	Kind SeriesGuardKind
	// Prev is the state the recomputation read: the transaction fails unless it is
	// still the stored one.
	Prev MetricsState
	// Next replaces Prev (SeriesGuardCommit only).
	Next MetricsState
}

// SeriesGuardKind is what a SeriesGuard adds to the transaction.
type SeriesGuardKind uint8

const (
	// SeriesGuardNone adds nothing.
	SeriesGuardNone SeriesGuardKind = iota
	// SeriesGuardCheck checks that the stored state is still Prev.
	SeriesGuardCheck
	// SeriesGuardCommit writes Next over Prev: the commit of a recomputation, whose
	// parts other than the head MetricsStateCommit has written already.
	SeriesGuardCommit
)

// SeriesStateCheck is the guard that the customer's stored state is still prev (a
// recomputation that changes the series but not the state).
func SeriesStateCheck(prev MetricsState) SeriesGuard {
	return SeriesGuard{Kind: SeriesGuardCheck, Prev: prev}
}
