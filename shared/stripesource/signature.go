package stripesource

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"
)

// RejectedError is why a webhook delivery is refused before anything is read from it; a
// handler answers 400 for every one (errors.As) and applies nothing.
type RejectedError struct{ reason string }

func (e *RejectedError) Error() string { return "stripe webhook rejected: " + e.reason }

// The reasons a delivery is rejected; compare with errors.Is.
var (
	ErrNotSigned       = &RejectedError{"no Stripe-Signature header"}
	ErrMalformedHeader = &RejectedError{"malformed Stripe-Signature header"}
	ErrBadSignature    = &RejectedError{"no v1 signature matches the secret"}
	ErrStale           = &RejectedError{"signature timestamp outside the tolerance"}
	ErrNotEvent        = &RejectedError{"body is not a Stripe event"}
	ErrAPIVersion      = &RejectedError{"event rendered in another API version"}
)

// DefaultTolerance is how far a signature's timestamp may be from now (Stripe's default).
const DefaultTolerance = webhook.DefaultTolerance

// Verifier checks the Stripe-Signature header of a delivery (scheme v1: HMAC-SHA256 of
// the timestamp, a dot and the raw body, keyed with the endpoint's whole secret; any of
// several v1 values may match, as while a secret is rolled) and returns the event.
type Verifier struct {
	// Tolerance is the largest distance between the signature's timestamp and Now, in
	// either direction; 0 means DefaultTolerance.
	Tolerance time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Verify returns the event of payload, the raw request body, signed in header with
// secret. Errors are *RejectedError. Events must be rendered in the API release train of
// the stripe-go types (clover): another one would decode into the wrong shapes.
func (v Verifier) Verify(payload []byte, header, secret string) (stripe.Event, error) {
	// stripe-go reads its own clock for the tolerance: it checks the signature only, the
	// timestamp is checked below against v's clock.
	ev, err := webhook.ConstructEventWithOptions(payload, header, secret,
		webhook.ConstructEventOptions{IgnoreTolerance: true, IgnoreAPIVersionMismatch: true})
	switch {
	case errors.Is(err, webhook.ErrNotSigned):
		return stripe.Event{}, ErrNotSigned
	case errors.Is(err, webhook.ErrInvalidHeader):
		return stripe.Event{}, ErrMalformedHeader
	case errors.Is(err, webhook.ErrNoValidSignature):
		return stripe.Event{}, ErrBadSignature
	case err != nil:
		return stripe.Event{}, ErrNotEvent
	}
	signed, ok := signedAt(header)
	if !ok {
		return stripe.Event{}, ErrMalformedHeader
	}
	now, tolerance := time.Now(), v.Tolerance
	if v.Now != nil {
		now = v.Now()
	}
	if tolerance == 0 {
		tolerance = DefaultTolerance
	}
	if d := now.Sub(signed); d > tolerance || d < -tolerance {
		return stripe.Event{}, ErrStale
	}
	if releaseTrain(ev.APIVersion) != releaseTrain(stripe.APIVersion) {
		return stripe.Event{}, ErrAPIVersion
	}
	return ev, nil
}

// signedAt is the header's timestamp (the last t=, as stripe-go reads it).
func signedAt(header string) (time.Time, bool) {
	var at time.Time
	found := false
	for part := range strings.SplitSeq(header, ",") {
		if v, ok := strings.CutPrefix(part, "t="); ok {
			s, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			at, found = time.Unix(s, 0), true
		}
	}
	return at, found
}

// releaseTrain is what follows the date of an API version ("clover" of
// "2026-02-25.clover"); "" when there is none.
func releaseTrain(version string) string {
	_, train, _ := strings.Cut(version, ".")
	return train
}
