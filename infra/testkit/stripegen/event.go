package stripegen

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"
)

// Event renders obj (a stripe-go object) as the data.object of an event of type typ,
// as Stripe sends it: in API version stripe.APIVersion, previous attributes when given,
// an expandable field that is not expanded as its id.
func Event(id string, typ stripe.EventType, created time.Time, obj any, prev map[string]any) ([]byte, error) {
	raw, err := render(obj)
	if err != nil {
		return nil, err
	}
	return json.Marshal(stripe.Event{ID: id, Object: "event", Type: typ, APIVersion: stripe.APIVersion, Created: created.Unix(),
		Data: &stripe.EventData{Raw: raw, PreviousAttributes: prev}, Request: &stripe.EventRequest{}})
}

// Sign is the Stripe-Signature header of payload signed with secret at t (scheme v1),
// by stripe-go's own test helper.
func Sign(payload []byte, secret string, t time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: t}).Header
}

// render marshals a stripe-go object as Stripe renders it: stripe-go marshals a
// reference ({ID: "cus_1"}) as a whole object of zero values; Stripe sends its id.
func render(obj any) (json.RawMessage, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		for k, child := range m {
			m[k] = references(child)
		}
	}
	return json.Marshal(v)
}

// references replaces, below v, every object whose only set field is its id by the id.
func references(v any) any {
	switch t := v.(type) {
	case map[string]any:
		id, _ := t["id"].(string)
		onlyID := true
		for k, child := range t {
			t[k] = references(child)
			if k != "id" && !zero(t[k]) {
				onlyID = false
			}
		}
		if id != "" && onlyID {
			return id
		}
		return t
	case []any:
		for i := range t {
			t[i] = references(t[i])
		}
	}
	return v
}

func zero(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case bool:
		return !t
	case json.Number:
		return t == "0"
	}
	return false
}
