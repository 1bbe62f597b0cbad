package model

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"time"
)

// The ten subscription event types (docs/metrics-engine.md §2).
const (
	EventSubscriptionStart            = "subscription_start"
	EventSubscriptionStartScheduled   = "subscription_start_scheduled"
	EventScheduledStartRetracted      = "scheduled_subscription_start_retracted"
	EventSubscriptionCancelled        = "subscription_cancelled"
	EventCancellationScheduled        = "subscription_cancellation_scheduled"
	EventScheduledCancellationRetract = "scheduled_subscription_cancellation_retracted"
	EventSubscriptionUpdated          = "subscription_updated"
	EventSubscriptionUpdateScheduled  = "subscription_update_scheduled"
	EventScheduledUpdateRetracted     = "scheduled_subscription_update_retracted"
	EventSubscriptionEventRetracted   = "subscription_event_retracted"
)

// EventTypes are the allowed values of event_type.
var EventTypes = []string{
	EventSubscriptionStart, EventSubscriptionStartScheduled, EventScheduledStartRetracted,
	EventSubscriptionCancelled, EventCancellationScheduled, EventScheduledCancellationRetract,
	EventSubscriptionUpdated, EventSubscriptionUpdateScheduled, EventScheduledUpdateRetracted,
	EventSubscriptionEventRetracted,
}

// eventsWithPlan need plan_external_id, currency and amount_in_cents.
var eventsWithPlan = []string{EventSubscriptionStart, EventSubscriptionStartScheduled,
	EventSubscriptionUpdated, EventSubscriptionUpdateScheduled}

// EventFields are the values of a subscription event.
type EventFields struct {
	CustomerExternalID        string    `json:"customer_external_id"`
	EventType                 string    `json:"event_type"`
	EventDate                 time.Time `json:"event_date"`
	EffectiveDate             time.Time `json:"effective_date"`
	SubscriptionExternalID    string    `json:"subscription_external_id"`
	SubscriptionSetExternalID *string   `json:"subscription_set_external_id,omitempty"`
	ExternalID                string    `json:"external_id,omitempty"`
	PlanExternalID            *string   `json:"plan_external_id,omitempty"`
	Currency                  *string   `json:"currency,omitempty"`
	AmountInCents             *int64    `json:"amount_in_cents,omitempty"`
	TaxAmountInCents          *int64    `json:"tax_amount_in_cents,omitempty"`
	Quantity                  *int64    `json:"quantity,omitempty"`
	RetractedEventID          *int64    `json:"retracted_event_id,omitempty"`
	EventOrder                *int64    `json:"event_order,omitempty"`
	// SentAsString names the EchoedNumbers that were sent as JSON strings: ChartMogul
	// answers them in the type they were sent with.
	SentAsString []string `json:"sent_as_string,omitempty"`
}

// EchoedNumbers are the numeric fields of an event that responses echo in the JSON
// type of the request ("1000" stays a string).
var EchoedNumbers = []string{"amount_in_cents", "tax_amount_in_cents", "quantity", "event_order"}

// SubscriptionEvent is a stored subscription event.
type SubscriptionEvent struct {
	AccountID      string
	ID             int64
	DataSourceUUID string
	CustomerUUID   string
	EventFields
	DisabledState
	CreatedAt time.Time
	UpdatedAt time.Time
}

// readEventFields validates one subscription event. requireAll applies the rules of
// a new event; an update (PATCH) passes false and reads only what was sent.
func readEventFields(r *record, requireAll bool) EventFields {
	e := EventFields{
		CustomerExternalID:     r.str("customer_external_id", requireAll, MaxExternalIDLen),
		EventType:              r.enum("event_type", requireAll, EventTypes...),
		SubscriptionExternalID: r.str("subscription_external_id", requireAll, MaxExternalIDLen),
		ExternalID:             r.str("external_id", false, MaxExternalIDLen),
	}
	if d := r.date("event_date", requireAll); d != nil {
		e.EventDate = *d
	}
	if d := r.date("effective_date", requireAll); d != nil {
		e.EffectiveDate = *d
	}
	e.SubscriptionSetExternalID = r.optStr("subscription_set_external_id", MaxExternalIDLen)
	withPlan := slices.Contains(eventsWithPlan, e.EventType)
	if withPlan || r.present("plan_external_id") {
		s := r.str("plan_external_id", withPlan, MaxExternalIDLen)
		e.PlanExternalID = &s
	}
	if withPlan || r.present("currency") {
		c := r.currency("currency", withPlan)
		e.Currency = &c
	}
	if n, ok := r.integer("amount_in_cents", withPlan, MinInt32, MaxInt32); ok {
		e.AmountInCents = &n
	}
	e.TaxAmountInCents = r.optInt("tax_amount_in_cents", 0, MaxInt32)
	if q := r.optInt("quantity", MinInt32, MaxInt32); q != nil {
		if *q == 0 {
			r.fail("quantity", "must not be 0")
		}
		e.Quantity = q
	} else if withPlan {
		one := int64(1)
		e.Quantity = &one
	}
	retracting := e.EventType == EventSubscriptionEventRetracted
	if n, ok := r.integer("retracted_event_id", retracting, 1, 1<<53); ok {
		e.RetractedEventID = &n
	}
	e.EventOrder = r.optInt("event_order", MinInt32, MaxInt32)
	for _, f := range EchoedNumbers {
		if v, ok := r.m[f].(string); ok && strings.TrimSpace(v) != "" {
			e.SentAsString = append(e.SentAsString, f)
		}
	}
	return e
}

// ReadSubscriptionEvent validates a subscription event sent to /v1/subscription_events
// (decoded with UseNumber); data_source_uuid is read by the caller.
func ReadSubscriptionEvent(obj map[string]any, requireAll bool) (EventFields, error) {
	r := &record{name: "subscription_event", m: obj}
	e := readEventFields(r, requireAll)
	if r.err != nil {
		return e, r.err
	}
	return e, nil
}

// EventIDFor derives a subscription event's integer id from what identifies it, so a
// replayed import or a retried create addresses the same event. Ids stay below 2^53
// (exact in JavaScript) and above 10^9 (never confused with a small counter).
func EventIDFor(parts ...string) int64 {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	n := int64(binary.BigEndian.Uint64(sum[:8]) >> 11) // 53 bits
	if n < 1_000_000_000 {
		n += 1_000_000_000
	}
	return n
}

// ExternalEventID is the id an event with an external id is created with in a data
// source (imports and POST /v1/subscription_events alike).
func ExternalEventID(accountID, dsUUID, externalID string) int64 {
	return EventIDFor("x", accountID, dsUUID, externalID)
}
