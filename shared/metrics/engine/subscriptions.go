package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"slices"
	"time"
)

// subscription is the working state of one subscription while a customer is computed.
type subscription struct {
	key            string // data source + external id: the identity of §1.2
	uuid           string
	externalID     string
	setExternalID  string
	dataSourceUUID string
	items          []pricedItem // sorted by service period start, event order, input order
	cancellations  []time.Time  // cancellation history as given (before churn recognition)
	committed      []*step      // future start/update events (committed MRR only)
	coverage       []span       // service periods, plus gaps smoothed by a connection
	connected      []string
	steps          []*step

	// Simulation state.
	mrr           *big.Rat
	native        *big.Rat // mrr in currency, unless mixed
	currency      string
	mixed         bool // mrr adds amounts of several currencies: it has no one native amount
	live          bool // billed more than $0 and not cancelled since
	plan          Plan
	quantity      int64
	startDate     time.Time
	lastPeriodEnd time.Time
	cancelledAt   time.Time
	timeline      []Point
	linkedTo      string
	autoChurn     bool
}

func subscriptionKey(dataSource, externalID string) string {
	return dataSource + "\x00" + externalID
}

// derivedUUID gives a stable id to a subscription the caller has not named yet.
func derivedUUID(key string) string {
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:16])
	return "sub_" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// groupSubscriptions builds one subscription per data source + subscription_external_id.
func groupSubscriptions(in Input, items []pricedItem) (map[string]*subscription, []*subscription) {
	byKey := map[string]*subscription{}
	var ordered []*subscription
	get := func(ds, ext, uuid, set string) *subscription {
		k := subscriptionKey(ds, ext)
		s := byKey[k]
		if s == nil {
			s = &subscription{key: k, externalID: ext, dataSourceUUID: ds, mrr: new(big.Rat), native: new(big.Rat)}
			byKey[k] = s
			ordered = append(ordered, s)
		}
		if s.uuid == "" && uuid != "" {
			s.uuid = uuid
		}
		if set != "" {
			s.setExternalID = set
		}
		return s
	}
	for _, it := range items {
		ds := in.Invoices[it.invoice].DataSourceUUID
		s := get(ds, it.SubscriptionExternalID, it.SubscriptionUUID, it.SubscriptionSetExternalID)
		s.items = append(s.items, it)
	}
	for _, e := range in.Events {
		if e.SubscriptionExternalID != "" {
			get(e.DataSourceUUID, e.SubscriptionExternalID, e.SubscriptionUUID, e.SubscriptionSetExternalID)
		}
	}
	for _, s := range ordered {
		if s.uuid == "" {
			s.uuid = derivedUUID(s.key)
		}
		sortItems(s.items)
		s.coverage = s.coverage[:0]
		for _, it := range s.items {
			s.coverage = append(s.coverage, span{it.ServicePeriodStart, it.ServicePeriodEnd})
		}
	}
	return byKey, ordered
}

func sortItems(items []pricedItem) {
	slices.SortStableFunc(items, func(a, b pricedItem) int {
		if c := a.ServicePeriodStart.Compare(b.ServicePeriodStart); c != 0 {
			return c
		}
		if a.EventOrder != b.EventOrder {
			return a.EventOrder - b.EventOrder
		}
		return a.seq - b.seq
	})
}

// hasRealItems: subscriptions known only from future events are not listed.
func (s *subscription) hasRealItems() bool { return len(s.items) > 0 }

// periodEndCovering returns the end of the latest service period that started at or
// before t, and whether one exists (churn at period end, §4.2).
func (s *subscription) periodEndCovering(t time.Time) (time.Time, bool) {
	var end time.Time
	found := false
	for _, it := range s.items {
		if it.ServicePeriodStart.After(t) {
			break
		}
		if !found || it.ServicePeriodEnd.After(end) {
			end = it.ServicePeriodEnd
		}
		found = true
	}
	return end, found
}
