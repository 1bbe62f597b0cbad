package accountseries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/subsight/subsight/shared/ids"
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

// activitiesOf builds the customer's activities from its real movements.
func activitiesOf(accountID string, c CustomerAttrs, ms []engine.Movement) []activity {
	out := make([]activity, 0, len(ms))
	seen := map[string]int{}
	for _, m := range ms {
		identity := fmt.Sprintf("%s|%s|%s|%s", accountID, c.UUID, timefmt.Nanos(m.At), m.SubscriptionUUID)
		seq := seen[identity]
		seen[identity]++
		id := ids.Activity(m.At, fmt.Sprintf("%s|%d", identity, seq))
		a := store.Activity{UUID: id, Date: m.At.UTC(), Type: m.Type, Movement: m.Amount, MRR: m.CustomerMRR,
			Description: m.Description, SubscriptionExternalID: m.SubscriptionExternalID,
			SubscriptionSetExternalID: m.SubscriptionSetExternalID, PlanExternalID: c.PlanExternalIDs[m.PlanUUID],
			CustomerUUID: c.UUID, CustomerName: c.Name, CustomerExternalID: c.ExternalID, DataSourceUUID: c.DataSourceUUID}
		b, _ := json.Marshal(a)
		sum := sha256.Sum256(b)
		out = append(out, activity{Activity: a, sk: keys.Activity(accountID, c.UUID, keys.ActivityOrder(timefmt.Nanos(a.Date), a.UUID)).SK,
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
