package accountseries

import (
	"context"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the series keep in the table; package store implements it. The
// bucket items of a segment (keys.SeriesPartition) only ever have numbers added to
// them, by AddSeriesChunk; a customer's Applied record says what it added.
type Storage interface {
	GetAccount(ctx context.Context, accountID string) (model.Account, error)

	// GetSeriesRecord reads a customer's record (Exists false when there is none).
	GetSeriesRecord(ctx context.Context, accountID, customerUUID string) (Applied, error)
	// ReplaceSeriesRecord writes next over old, failing when the record changed since
	// old was read or a chunk of old is still pending.
	ReplaceSeriesRecord(ctx context.Context, accountID, customerUUID string, old, next Applied) error
	// AddSeriesChunk adds a pending chunk to the buckets (the write shard of the
	// customer of integer id customerID, 0 if unknown) and removes it from the record,
	// atomically and only while the chunk is pending.
	AddSeriesChunk(ctx context.Context, accountID, customerUUID string, customerID int64, chunkID string, adds []BucketAdd) error
	// MarkSeriesActivitiesDone records that the activity log matches version.
	MarkSeriesActivitiesDone(ctx context.Context, accountID, customerUUID, version string) error
	// DeleteSeriesRecord deletes the record if it still has version.
	DeleteSeriesRecord(ctx context.Context, accountID, customerUUID, version string) error
	// WriteActivities puts a customer's activities and deletes others by sort key.
	WriteActivities(ctx context.Context, accountID, customerUUID string, put []store.Activity, drop []string) error

	// SeriesWindow is what one metrics request reads of a segment: the bucket items with
	// the sort keys sks (absent ones left out) and those whose sort keys lie in
	// [from, to].
	SeriesWindow(ctx context.Context, accountID, segment string, sks []string, from, to string) (points, window []Bucket, err error)
	// SeriesBucketsBetween reads the bucket items whose sort keys lie in [from, to].
	SeriesBucketsBetween(ctx context.Context, accountID, segment, from, to string) ([]Bucket, error)
	// SeriesBucketsWithPrefix reads the bucket items whose sort keys start with prefix.
	SeriesBucketsWithPrefix(ctx context.Context, accountID, segment, prefix string) ([]Bucket, error)

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
