package accountseries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/engine"
)

// activityItem is one movement in the account activity log. It lives in the
// customer's activity partition; GSI1 lists the account's activities by date and
// GSI2 those of one type.
type activityItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	ET     string `dynamodbav:"et"`
	GSI1PK string `dynamodbav:"GSI1PK"`
	GSI1SK string `dynamodbav:"GSI1SK"`
	GSI2PK string `dynamodbav:"GSI2PK"`
	GSI2SK string `dynamodbav:"GSI2SK"`
	Activity
	Hash string `dynamodbav:"-"`
}

// Activity is what the activity log shows of one movement.
type Activity struct {
	UUID                      string    `dynamodbav:"uuid"`
	Date                      time.Time `dynamodbav:"date"`
	Type                      string    `dynamodbav:"type"`
	Movement                  int64     `dynamodbav:"movement"`
	MRR                       int64     `dynamodbav:"mrr"`
	Description               string    `dynamodbav:"description"`
	SubscriptionExternalID    string    `dynamodbav:"subscription_external_id"`
	SubscriptionSetExternalID string    `dynamodbav:"subscription_set_external_id"`
	PlanExternalID            string    `dynamodbav:"plan_external_id"`
	CustomerUUID              string    `dynamodbav:"customer_uuid"`
	CustomerName              string    `dynamodbav:"customer_name"`
	CustomerExternalID        string    `dynamodbav:"customer_external_id"`
	DataSourceUUID            string    `dynamodbav:"data_source_uuid"`
}

// activityNamespace makes activity uuids deterministic: the same movement keeps its
// uuid across recomputations, whatever its type becomes.
var activityNamespace = uuid.MustParse("5b0f3a52-9d43-4e55-9c1f-3f7c2a6d8e10")

// OrderTime renders an instant so that string order is time order.
func OrderTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// activitiesOf builds the customer's activity items from its real movements.
func activitiesOf(accountID string, c CustomerAttrs, ms []engine.Movement) []activityItem {
	out := make([]activityItem, 0, len(ms))
	seen := map[string]int{}
	for _, m := range ms {
		identity := fmt.Sprintf("%s|%s|%s|%s", accountID, c.UUID, OrderTime(m.At), m.SubscriptionUUID)
		seq := seen[identity]
		seen[identity]++
		id := uuid.NewSHA1(activityNamespace, fmt.Appendf(nil, "%s|%d", identity, seq)).String()
		a := Activity{UUID: id, Date: m.At.UTC(), Type: m.Type, Movement: m.Amount, MRR: m.CustomerMRR,
			Description: m.Description, SubscriptionExternalID: m.SubscriptionExternalID,
			SubscriptionSetExternalID: m.SubscriptionSetExternalID, PlanExternalID: c.PlanExternalIDs[m.PlanUUID],
			CustomerUUID: c.UUID, CustomerName: c.Name, CustomerExternalID: c.ExternalID, DataSourceUUID: c.DataSourceUUID}
		order := keys.ActivityOrder(OrderTime(m.At), id)
		k := keys.Activity(accountID, c.UUID, order)
		b, _ := json.Marshal(a)
		sum := sha256.Sum256(b)
		out = append(out, activityItem{PK: k.PK, SK: k.SK, ET: keys.TypeActivity,
			GSI1PK: keys.ActivitiesByAccount(accountID), GSI1SK: order,
			GSI2PK: keys.ActivitiesByType(accountID, m.Type), GSI2SK: order,
			Activity: a, Hash: hex.EncodeToString(sum[:8])})
	}
	return out
}

func activityHashes(acts []activityItem) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = a.SK + "=" + a.Hash
	}
	return out
}

// writeActivities puts the activities whose content differs from prev and deletes
// those of prev that are gone (all in the customer's partition pk). Puts and deletes
// are idempotent, so a retry is safe.
func (db *db) writeActivities(ctx context.Context, pk string, prev map[string]string, acts []activityItem) error {
	var reqs []types.WriteRequest
	current := map[string]bool{}
	for _, a := range acts {
		current[a.SK] = true
		if h, ok := prev[a.SK]; ok && h == a.Hash {
			continue
		}
		av, err := attributevalue.MarshalMap(a)
		if err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
	}
	for _, sk := range sortedKeys(prev) {
		if !current[sk] {
			reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{
				Key: keyOf(keys.Key{PK: pk, SK: sk})}})
		}
	}
	return db.store.BatchWrite(ctx, reqs)
}
