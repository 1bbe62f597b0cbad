package stripewebhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/queue"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripesource"
)

// MaxBody is the largest delivery taken. Stripe publishes no bound on an event's size;
// an invoice with many lines and payments is tens of kilobytes, and a 1 MB event
// passes with room. Above 4 MB the Lambda invocation itself is at risk: its event
// carries the body JSON-escaped (a Stripe event's quotes take two bytes each, about a
// fifth more) or base64-encoded (a third more), and Lambda refuses an event over 6 MB
// with a 500 before the function runs (docs/architecture.md, "Body size").
const MaxBody = 4 << 20

// Connections reads a data source's Stripe connection (store.StripeConnections).
type Connections interface {
	GetStripeConnection(ctx context.Context, dsUUID string) (model.StripeConnection, error)
}

// Events keeps the raw bodies of verified events too large for their message (the
// bucket, under stripe/: blobs.Store).
type Events interface {
	Put(ctx context.Context, key string, body []byte) error
	Get(ctx context.Context, key string) ([]byte, error)
}

// EventApplier applies one verified Stripe event to the account of conn (the sync,
// shared/stripesync). It is called at least once per event, in the order of the
// event's message group, and must be idempotent.
type EventApplier interface {
	ApplyEvent(ctx context.Context, conn model.StripeConnection, ev stripe.Event) error
}

// Deps are what the webhook endpoint and the Stripe events worker use, built once per
// process by the wiring (shared/app).
type Deps struct {
	Connections Connections
	Sealer      secrets.Sealer
	Events      Events
	// Queue is the Stripe events FIFO queue.
	Queue queue.FIFO
	// Applier is the sync (nil: the worker fails every message, which then waits in
	// the queue and its dead-letter queue).
	Applier EventApplier
	// Waiting tells the applier's refusals that wait for another event (an invoice's
	// payment before the invoice): those messages come back within seconds instead of
	// after the visibility timeout. nil: none.
	Waiting func(error) bool
	// Now is the clock the signatures' timestamps are checked against.
	Now func() time.Time
}

// Received is the endpoint's answer to every delivery it accepts.
var Received = map[string]bool{"received": true}

// eventID is the shape of a Stripe event id as the keys use it: nothing that could
// leave its place in an object key or a hash's input.
var eventID = regexp.MustCompile(`^evt_[A-Za-z0-9_]{1,200}$`)

// v1Signature is a v1 scheme's signature: HMAC-SHA256 in hex.
var v1Signature = regexp.MustCompile(`^[0-9a-f]{64}$`)

// wellFormed tells a Stripe-Signature header worth a read: a timestamp and at least
// one v1 signature of 64 hex digits among its comma-separated parts. Anything else is
// refused before the connection is read, so it costs nothing.
func wellFormed(header string) bool {
	var stamped, signed bool
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			_, err := strconv.ParseInt(v, 10, 64)
			stamped = err == nil
		case "v1":
			signed = signed || v1Signature.MatchString(v)
		}
	}
	return stamped && signed
}

// Receive takes one delivery to the data source dsUUID: body is the raw request body,
// signature the Stripe-Signature header. It returns nil once the event is durable (or
// is of a type the sync does not read) and an *apperr.Error for every refusal; nothing
// is stored for a refused delivery.
func (d *Deps) Receive(ctx context.Context, dsUUID string, body []byte, signature string) error {
	if len(body) > MaxBody {
		return apperr.TooLarge("The event is larger than %d MB", MaxBody>>20)
	}
	// A path that cannot name a data source, or a request without a signature, is
	// refused before any read.
	if !ids.Valid(dsUUID, ids.DataSource) {
		return notConnected()
	}
	if signature == "" {
		return apperr.BadRequest("Stripe-Signature", "The Stripe-Signature header is missing")
	}
	if !wellFormed(signature) {
		return apperr.BadRequest("Stripe-Signature", "%s", rejectionMessage(stripesource.ErrMalformedHeader))
	}
	conn, err := d.Connections.GetStripeConnection(ctx, dsUUID)
	if errors.Is(err, store.ErrNotFound) {
		return notConnected()
	}
	if err != nil {
		return fmt.Errorf("read the Stripe connection: %w", err)
	}
	secret, err := d.Sealer.Open(ctx, conn.SealedWebhookSecret, secrets.Binding{AccountID: conn.AccountID, DataSourceUUID: dsUUID})
	if err != nil {
		return fmt.Errorf("open the webhook secret: %w", err)
	}
	ev, err := stripesource.Verifier{Now: d.Now}.Verify(body, signature, string(secret))
	var rejected *stripesource.RejectedError
	if errors.As(err, &rejected) {
		return apperr.BadRequest("Stripe-Signature", "%s", rejectionMessage(rejected))
	}
	if err != nil {
		return err
	}
	if !eventID.MatchString(ev.ID) || ev.Data == nil {
		return apperr.BadRequest("id", "The body is not a Stripe event")
	}
	log := slog.With("account_id", conn.AccountID, "data_source_uuid", dsUUID, "event_id", ev.ID, "event_type", string(ev.Type))
	if !Queued[ev.Type] {
		log.InfoContext(ctx, "stripe event ignored")
		return nil
	}
	m := Message{AccountID: conn.AccountID, DataSourceUUID: dsUUID, EventID: ev.ID, EventType: string(ev.Type),
		Created: ev.Created, Group: GroupOf(ev)}
	out, inline := m.carrying(body)
	if !inline {
		// Too large for the message (or not text SQS takes): the body first, so that a
		// message always finds its event. A retry of a delivery whose send failed writes
		// the same object again.
		m.Key = EventKey(conn.AccountID, dsUUID, ev.ID)
		if err := d.Events.Put(ctx, m.Key, body); err != nil {
			return fmt.Errorf("store the event: %w", err)
		}
		if out, err = m.queueMessage(); err != nil {
			return fmt.Errorf("queue the event: %w", err)
		}
	}
	if err := d.Queue.Send(ctx, out); err != nil {
		return fmt.Errorf("queue the event: %w", err)
	}
	log.InfoContext(ctx, "stripe event queued", "group", m.Group, "inline", m.Key == "")
	return nil
}

// notConnected is the answer for a data source that does not exist, is another
// account's under a uuid never issued, or has no Stripe connection: the same 404, so
// that the endpoint tells nobody which data sources exist.
func notConnected() error {
	return apperr.NotFound("data_source_uuid", "Data source not found or not connected to Stripe")
}

// rejectionMessage is what the endpoint tells Stripe (and whoever else calls it) about
// a refused delivery: which check failed, never the secret or the expected signature.
func rejectionMessage(e *stripesource.RejectedError) string {
	switch e {
	case stripesource.ErrNotSigned, stripesource.ErrMalformedHeader:
		return "The Stripe-Signature header is missing or malformed"
	case stripesource.ErrBadSignature:
		return "No signature matches the data source's webhook secret"
	case stripesource.ErrStale:
		return "The signature's timestamp is outside the tolerance"
	case stripesource.ErrAPIVersion:
		return "The event is rendered in another Stripe API version than " + stripe.APIVersion
	default:
		return "The body is not a Stripe event"
	}
}
