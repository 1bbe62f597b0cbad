package stripewebhook

import (
	"encoding/json"
	"errors"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/queue"
)

// Message is one queued event: where its body is and whose it is. The body stays in
// the bucket: an event may be far larger than a queue message's 256 KB.
type Message struct {
	AccountID      string `json:"account_id"`
	DataSourceUUID string `json:"data_source_uuid"`
	EventID        string `json:"event_id"`
	EventType      string `json:"event_type"`
	// Created is the event's creation time (Unix seconds), for the freshness figures.
	Created int64 `json:"created"`
	// Key is the event's object in the bucket.
	Key string `json:"key"`
	// Group is what the message is ordered with (GroupOf), before hashing.
	Group string `json:"group"`
}

// EventKey is the bucket key of an event's raw body: under stripe/, by account, data
// source and event id, so a redelivery of one event overwrites its own object.
func EventKey(accountID, dsUUID, eventID string) string {
	return "stripe/" + accountID + "/" + dsUUID + "/" + eventID + ".json"
}

// GroupOf is what an event is ordered with in the queue: the Stripe customer its object
// names ("customer:cus_…"; a customer's own events by its id). Objects that name no
// customer are ordered with the object they belong to: an invoice payment with its
// invoice ("invoice:in_…"), any other object (a refund, a price, a product, an
// invoice payment without its invoice) with itself ("object:<id>"). Such events may
// then be applied before or after their customer's events: the sync converges on any
// order, as it must for Stripe's own deliveries, which are unordered.
func GroupOf(ev stripe.Event) string {
	var obj struct {
		Object   string          `json:"object"`
		ID       string          `json:"id"`
		Customer json.RawMessage `json:"customer"`
		Invoice  json.RawMessage `json:"invoice"`
	}
	if ev.Data != nil {
		_ = json.Unmarshal(ev.Data.Raw, &obj)
	}
	switch {
	case obj.Object == "customer" && obj.ID != "":
		return "customer:" + obj.ID
	case idOf(obj.Customer) != "":
		return "customer:" + idOf(obj.Customer)
	case obj.Object == "invoice_payment" && idOf(obj.Invoice) != "":
		return "invoice:" + idOf(obj.Invoice)
	case obj.ID != "":
		return "object:" + obj.ID
	default:
		return "event:" + ev.ID
	}
}

// idOf is the id of an expandable field: the string itself, or the id of the expanded
// object ("" for null or absent).
func idOf(raw json.RawMessage) string {
	var id string
	if json.Unmarshal(raw, &id) == nil {
		return id
	}
	var obj struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.ID
	}
	return ""
}

// MessageGroup is the queue's message group of an event: a hash of the account, the
// data source and its group, so one Stripe customer's events are delivered in the
// order received, and customers of different data sources never share a group.
func MessageGroup(accountID, dsUUID, group string) string {
	return queue.ID("stripe", accountID, dsUUID, group)
}

// DeduplicationID is the queue's deduplication id of an event: a hash of the data
// source and the event id, so a redelivery within the queue's five minutes is dropped
// by the queue (later ones by the sync, which keeps what it applied).
func DeduplicationID(dsUUID, eventID string) string { return queue.ID("stripe-event", dsUUID, eventID) }

func (m Message) queueMessage() queue.Message {
	body, err := json.Marshal(m)
	if err != nil {
		panic(err) // strings and an integer only
	}
	return queue.Message{Body: string(body), Group: MessageGroup(m.AccountID, m.DataSourceUUID, m.Group),
		DedupID: DeduplicationID(m.DataSourceUUID, m.EventID)}
}

// DecodeMessage reads a queued message's body.
func DecodeMessage(body string) (Message, error) {
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return Message{}, err
	}
	if m.AccountID == "" || m.DataSourceUUID == "" || m.Key == "" || m.EventID == "" {
		return Message{}, errors.New("stripe event message without account, data source, key or event id")
	}
	return m, nil
}
