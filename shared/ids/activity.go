package ids

import (
	"crypto/sha256"
	"time"

	"github.com/google/uuid"
)

// activityEpoch is where the time an activity uuid carries starts: 48 bits of
// milliseconds from 1900 reach past the year 2999, the span of imported records.
var activityEpoch = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// Activity is an activity's uuid: deterministic, so the same movement keeps it
// across recomputations whatever its type becomes, and telling where the activity is in
// the log (start-after of GET /v1/activities finds it by its time): the first 48 bits
// are its date in milliseconds since activityEpoch, the rest a hash of its identity,
// with the version (8, custom) and variant bits of RFC 9562.
func Activity(at time.Time, identity string) string {
	sum := sha256.Sum256([]byte(identity))
	var id uuid.UUID
	ms := max(at.UnixMilli()-activityEpoch.UnixMilli(), 0)
	for i := range 6 {
		id[i] = byte(uint64(ms) >> (40 - 8*i))
	}
	copy(id[6:], sum[:10])
	id[6] = id[6]&0x0f | 0x80
	id[8] = id[8]&0x3f | 0x80
	return id.String()
}

// ActivityTime is the time an activity uuid carries, to the millisecond (the activity's
// date truncated); false for a string that is not an activity's uuid.
func ActivityTime(s string) (time.Time, bool) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 || id.Version() != 8 || id.Variant() != uuid.RFC4122 {
		return time.Time{}, false
	}
	var ms uint64
	for i := range 6 {
		ms = ms<<8 | uint64(id[i])
	}
	return time.UnixMilli(activityEpoch.UnixMilli() + int64(ms)).UTC(), true
}
