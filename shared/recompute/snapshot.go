package recompute

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/store"
)

// layoutVersion is part of every hash: changing what a snapshot holds (or how rows are
// derived) bumps it, so every customer is rewritten once on its next recomputation.
const layoutVersion = 1

// snapshot is what a recomputation applied: the customer's figures, its view rows, and
// the movements the account series were given. Its hash is the idempotency key.
type snapshot struct {
	Layout        int                         `json:"l"`
	Country       string                      `json:"co,omitempty"`
	Status        string                      `json:"st"`
	CustomerSince time.Time                   `json:"cs"`
	MRR           int64                       `json:"m"`
	ARR           int64                       `json:"a"`
	AutoChurned   bool                        `json:"ac,omitempty"`
	Currencies    []string                    `json:"cur,omitempty"`
	NextChangeAt  time.Time                   `json:"n"`
	Subscriptions []store.MetricsSubscription `json:"s,omitempty"`
	Invalid       []store.InvalidInvoice      `json:"iv,omitempty"`
	Movements     []engine.Movement           `json:"mv,omitempty"`
}

// customerView is what the snapshot says the customer item should hold.
type customerView struct {
	accountID, customerUUID string
	currency                string
	plans                   map[string]engine.Plan
}

// newSnapshot maps an engine result to the stored rows.
func newSnapshot(v customerView, country string, res engine.Result) snapshot {
	s := snapshot{Layout: layoutVersion, Country: country, Status: res.Status, CustomerSince: res.CustomerSince,
		MRR: res.MRR, ARR: res.ARR, AutoChurned: res.AutoChurned, NextChangeAt: res.NextChangeAt,
		Movements: res.Movements, Currencies: res.BillingCurrencies}
	for _, sub := range res.Subscriptions {
		bare := ids.Bare(sub.UUID, ids.Subscription)
		row := store.MetricsSubscription{AccountID: v.accountID, CustomerUUID: v.customerUUID, UUID: bare,
			ID: numericID("sub", v.customerUUID, sub.UUID), ExternalID: sub.ExternalID, SetExternalID: sub.SetExternalID,
			DataSourceUUID: sub.DataSourceUUID, PlanUUID: sub.PlanUUID, PlanName: planName(v.plans, sub.PlanUUID),
			Quantity: sub.Quantity, MRR: sub.MRR, ARR: sub.ARR, Status: sub.Status, BillingCycle: sub.BillingCycle,
			BillingCycleCount: sub.BillingCycleCount, StartDate: sub.StartDate.UTC(), Currency: v.currency}
		if !sub.EndDate.IsZero() {
			end := sub.EndDate.UTC()
			row.EndDate = &end
		}
		s.Subscriptions = append(s.Subscriptions, row)
	}
	for _, inv := range res.InvalidInvoices {
		s.Invalid = append(s.Invalid, store.InvalidInvoice{AccountID: v.accountID, CustomerUUID: v.customerUUID,
			InvoiceUUID: inv.UUID, ExternalID: inv.ExternalID, Reason: inv.Reason})
	}
	return s
}

// activeQuantity is the quantities of the snapshot's active subscriptions, summed.
func (s snapshot) activeQuantity() int64 {
	var n int64
	for _, sub := range s.Subscriptions {
		if sub.Status == engine.SubscriptionActive {
			n += sub.Quantity
		}
	}
	return n
}

func planName(plans map[string]engine.Plan, uuid string) string {
	if p, ok := plans[uuid]; ok && p.Name != "" {
		return p.Name
	}
	return planExternalID(plans, uuid)
}

func planExternalID(plans map[string]engine.Plan, uuid string) string {
	if p, ok := plans[uuid]; ok {
		return p.ExternalID
	}
	return ""
}

// encode returns the snapshot's hash and its compressed bytes. JSON of structs (no maps)
// is deterministic, so equal snapshots have equal hashes.
func (s snapshot) encode() (string, []byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(raw)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if _, err := zw.Write(raw); err != nil {
		return "", nil, err
	}
	if err := zw.Close(); err != nil {
		return "", nil, err
	}
	return hex.EncodeToString(sum[:16]), buf.Bytes(), nil
}

// decodeSnapshot reads a stored snapshot of the account's customer (rows do not store
// the account id: it is in every key already).
func decodeSnapshot(accountID string, data []byte) (*snapshot, error) {
	if len(data) == 0 {
		return nil, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var s snapshot
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	for i := range s.Subscriptions {
		s.Subscriptions[i].AccountID = accountID
	}
	for i := range s.Invalid {
		s.Invalid[i].AccountID = accountID
	}
	return &s, nil
}

// numericID is a stable positive integer id (below 2^53, safe in JavaScript clients).
func numericID(parts ...string) int64 {
	sum := sha256.Sum256([]byte(strings.Join(parts, "|")))
	return int64(binary.BigEndian.Uint64(sum[:8]) >> 11)
}
