package stripegen

import (
	"encoding/json"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"
)

// Event renders obj (a stripe-go object) as the data.object of an event of type typ,
// as Stripe sends it: in API version stripe.APIVersion, previous attributes when given.
func Event(id string, typ stripe.EventType, created time.Time, obj any, prev map[string]any) ([]byte, error) {
	raw, err := json.Marshal(obj)
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
