package accountseries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// activity is an activity with its sort key and a hash of its content.
type activity struct {
	store.Activity
	sk, hash string
}

// activityEpoch is where the time an activity uuid carries starts: 48 bits of
// milliseconds from 1900 reach past the year 2999, the span of imported records.
var activityEpoch = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// activityUUID is an activity's uuid: deterministic, so the same movement keeps it
// across recomputations whatever its type becomes, and telling where the activity is in
// the log (start-after of GET /v1/activities finds it by its time): the first 48 bits
// are its date in milliseconds since activityEpoch, the rest a hash of its identity,
// with the version (8, custom) and variant bits of RFC 9562.
func activityUUID(at time.Time, identity string) string {
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

// activitiesOf builds the customer's activities from its real movements.
func activitiesOf(accountID string, c CustomerAttrs, ms []engine.Movement) []activity {
	out := make([]activity, 0, len(ms))
	seen := map[string]int{}
	for _, m := range ms {
		identity := fmt.Sprintf("%s|%s|%s|%s", accountID, c.UUID, timefmt.Nanos(m.At), m.SubscriptionUUID)
		seq := seen[identity]
		seen[identity]++
		id := activityUUID(m.At, fmt.Sprintf("%s|%d", identity, seq))
		a := store.Activity{UUID: id, Date: m.At.UTC(), Type: m.Type, Movement: m.Amount, MRR: m.CustomerMRR,
			Description: m.Description, SubscriptionExternalID: m.SubscriptionExternalID,
			SubscriptionSetExternalID: m.SubscriptionSetExternalID, PlanExternalID: c.PlanExternalIDs[m.PlanUUID],
			CustomerUUID: c.UUID, CustomerName: c.Name, CustomerExternalID: c.ExternalID, DataSourceUUID: c.DataSourceUUID}
		b, _ := json.Marshal(a)
		sum := sha256.Sum256(b)
		out = append(out, activity{Activity: a, sk: keys.Activity(accountID, c.UUID, a.Order()).SK,
			hash: hex.EncodeToString(sum[:8])})
	}
	return out
}

func activityHashes(acts []activity) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = a.sk + "=" + a.hash
	}
	return out
}

// writeActivities puts the activities whose content differs from prev and deletes
// those of prev that are gone. Puts and deletes are idempotent, so a retry is safe.
func (s *Series) writeActivities(ctx context.Context, accountID, customerUUID string, prev map[string]string, acts []activity) error {
	var put []store.Activity
	current := map[string]bool{}
	for _, a := range acts {
		current[a.sk] = true
		if h, ok := prev[a.sk]; ok && h == a.hash {
			continue
		}
		put = append(put, a.Activity)
	}
	var drop []string
	for _, sk := range sortedKeys(prev) {
		if !current[sk] {
			drop = append(drop, sk)
		}
	}
	return s.store.WriteActivities(ctx, accountID, customerUUID, put, drop)
}
