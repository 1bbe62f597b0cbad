package accountseries

import (
	"context"
	"time"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the series keep in the table; package store implements it. The
// bucket items of a segment only ever have numbers added to them (WriteSeriesBatch,
// AddSeriesChunk), in its read copy or in a bulk shard that FoldSeries later moves
// into the copy; a customer's Applied record says what it added.
type Storage interface {
	GetAccount(ctx context.Context, accountID string) (model.Account, error)

	// GetSeriesRecord reads a customer's record (Exists false when there is none).
	GetSeriesRecord(ctx context.Context, accountID, customerUUID string) (Applied, error)
	// GetSeriesRecords reads several customers' records, by customer uuid (those
	// without one left out).
	GetSeriesRecords(ctx context.Context, accountID string, customerUUIDs []string) (map[string]Applied, error)
	// ReplaceSeriesRecord writes next over old, failing with ErrChanged when the record
	// changed since old was read or a chunk of old is still pending.
	ReplaceSeriesRecord(ctx context.Context, accountID, customerUUID string, old, next Applied) error
	// WriteSeriesBatch writes records (each only over the record read, with its
	// guard) and adds adds to the buckets of shard, all or nothing; conflicts are the
	// positions of the records whose record or guard failed (then nothing is written).
	WriteSeriesBatch(ctx context.Context, accountID string, shard int, records []RecordWrite, adds []BucketAdd) (conflicts []int, err error)
	// AddSeriesChunk adds a pending chunk to the buckets of shard and removes it from
	// the record, atomically and only while the chunk is pending.
	AddSeriesChunk(ctx context.Context, accountID, customerUUID string, shard int, chunkID string, adds []BucketAdd) error
	// FoldSeries moves what the bulk shards of parts hold into the read copy, shard 0.
	FoldSeries(ctx context.Context, accountID string, parts []ShardPart) error
	// MarkSeriesActivitiesDone records that the activity log matches version.
	MarkSeriesActivitiesDone(ctx context.Context, accountID, customerUUID, version string) error
	// DeleteSeriesRecord deletes the record if it still has version.
	DeleteSeriesRecord(ctx context.Context, accountID, customerUUID, version string) error
	// WriteActivities puts a customer's activities and deletes others by sort key.
	WriteActivities(ctx context.Context, accountID, customerUUID string, put []store.Activity, drop []string) error

	// SeriesWindow is what one metrics request reads of a segment's read copy: the
	// bucket items with the sort keys sks (absent ones left out) and those whose sort
	// keys lie in [from, to].
	SeriesWindow(ctx context.Context, accountID, segment string, sks []string, from, to string) (points, window []Bucket, err error)
	// SeriesBucketsBetween reads the bucket items whose sort keys lie in [from, to]: the
	// read copy's, and the sum of the bulk shards' not folded yet.
	SeriesBucketsBetween(ctx context.Context, accountID, segment, from, to string) (copied, unfolded []Bucket, err error)
	// SeriesBucketsWithPrefix reads the read copy's bucket items whose sort keys start
	// with prefix.
	SeriesBucketsWithPrefix(ctx context.Context, accountID, segment, prefix string) ([]Bucket, error)

	// SeriesCells reads the contributions (Applied.Cells) of some customers, by
	// customer uuid; customers without a record are left out.
	SeriesCells(ctx context.Context, accountID string, customerUUIDs []string) (map[string]Cells, error)

	// SeriesBucketExists reads (consistently) whether a bucket item exists.
	SeriesBucketExists(ctx context.Context, accountID, segment, sk string) (bool, error)
	// PutSeries writes records, activities and whole bucket items with plain puts.
	PutSeries(ctx context.Context, accountID string, records map[string]Applied, acts []store.Activity, buckets []BucketAdd) error
}

// BucketAdd is numbers to add to attributes of one bucket item of a segment. The JSON
// names are those of the pending chunks stored in the customer's record.
type BucketAdd struct {
	Segment string           `json:"g"`
	SK      string           `json:"k"`
	Add     map[string]int64 `json:"a"`
}

// RecordWrite replaces a customer's record Old (as read) with Next (nil: the record
// stays), together with Guard: a write or check of the caller's that the store makes
// (the recomputation's state: store.Metrics.MetricsStateCommit or MetricsStateCheck),
// in the same transaction.
type RecordWrite struct {
	CustomerUUID string
	Old          Applied
	Next         *Applied
	Guard        any
	// ReadAt is when the writer began to read what Next is computed from: a record
	// written since then was written from fresher inputs, and the write fails.
	ReadAt time.Time
}

// ShardPart is what a fold moves: the segments a bulk shard holds.
type ShardPart struct {
	Shard    int
	Segments []string
}

// Bucket is one bucket item as read: its sort key and its numbers.
type Bucket struct {
	SK     string
	Values map[string]int64
}

// SeriesStore hands out the storage of the account series (the store implements it
// next to the store contract, which does not name the series).
type SeriesStore interface {
	// Series is the adapter of the account series on this store.
	Series() Storage
}
