package stripewebhook

import (
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/queue"
)

// Message is one queued event: whose it is, and the event itself when it fits the
// message (InlineLimit), else where its body is in the bucket.
type Message struct {
	AccountID      string `json:"account_id"`
	DataSourceUUID string `json:"data_source_uuid"`
	EventID        string `json:"event_id"`
	EventType      string `json:"event_type"`
	// Created is the event's creation time (Unix seconds), for the freshness figures.
	Created int64 `json:"created"`
	// Event is the verified event (its JSON, whitespace aside) when the message carries
	// it; Key is its object in the bucket when it does not.
	Event json.RawMessage `json:"event,omitempty"`
	Key   string          `json:"key,omitempty"`
	// Group is what the message is ordered with (GroupOf), before hashing.
	Group string `json:"group"`
}

// InlineLimit is the largest message body that carries its event; a larger event goes
// to the bucket and its message names it. SQS takes messages up to 1 MiB, but bills each
// 64 KB of one as another request, on the send and again on the receive: past about
// 380 KB an event costs more in the message than a bucket PUT and GET ($5.40 a
// million). 256 KiB (four such parts) stays below that, and a batch of ten, JSON-escaped
// in the worker's invocation event, stays well under Lambda's 6 MB. Nearly every Stripe
// event is a few kilobytes.
const InlineLimit = 256 << 10

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

func (m Message) queueMessage() (queue.Message, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return queue.Message{}, err // only an Event that is not JSON
	}
	return queue.Message{Body: string(body), Group: MessageGroup(m.AccountID, m.DataSourceUUID, m.Group),
		DedupID: DeduplicationID(m.DataSourceUUID, m.EventID)}, nil
}

// carrying is m's queue message with the event body in it, and whether that message
// may be sent: within InlineLimit, as text SQS takes. A body over twice the limit is not
// tried: the whitespace the encoder drops is far less than half of a Stripe event.
func (m Message) carrying(body []byte) (queue.Message, bool) {
	if len(body) > 2*InlineLimit {
		return queue.Message{}, false
	}
	m.Event = body
	out, err := m.queueMessage()
	return out, err == nil && len(out.Body) <= InlineLimit && sqsText(out.Body)
}

// sqsText tells a body SQS takes: valid UTF-8 of the characters it allows (tab, line
// feed, carriage return, and from U+0020 on, without the surrogates, U+FFFE and U+FFFF).
// A verified event's JSON nearly always is; one that is not travels through the bucket.
func sqsText(s string) bool {
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return false // invalid UTF-8 (a literal U+FFFD is refused too: rare, and safe)
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return false
		}
	}
	return true
}

// DecodeMessage reads a queued message's body.
func DecodeMessage(body string) (Message, error) {
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return Message{}, err
	}
	if m.AccountID == "" || m.DataSourceUUID == "" || (m.Key == "" && len(m.Event) == 0) || m.EventID == "" {
		return Message{}, errors.New("stripe event message without account, data source, event (or its key) or event id")
	}
	return m, nil
}
