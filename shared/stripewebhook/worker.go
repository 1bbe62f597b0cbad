package stripewebhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
)

// roundConcurrency bounds the events of a round applied at once: a batch holds at most
// ten messages, one per group in a round.
const roundConcurrency = 10

// ErrNoApplier fails every message while no sync is wired: they stay queued.
var ErrNoApplier = errors.New("stripewebhook: no event applier is wired")

// ApplyBatch applies a batch of the Stripe events queue: in rounds (the k-th message of
// every message group together, sqsworker.Rounds), so one Stripe customer's events are
// applied in the order received while different customers' run side by side. A group's
// first failure stops it; its later messages fail with it and come back in order.
func (d *Deps) ApplyBatch(ctx context.Context, msgs []events.SQSMessage) sqsworker.Failures {
	failures := sqsworker.Failures{}
	groups := sqsworker.Groups(msgs)
	decoded := map[string]Message{}
	for gi, g := range groups {
		for i, msg := range g {
			m, err := DecodeMessage(msg.Body)
			if err != nil {
				failures[msg.MessageId] = err
				groups[gi] = g[:i]
				break
			}
			decoded[msg.MessageId] = m
		}
	}
	sqsworker.Rounds(ctx, groups, failures, func(ctx context.Context, round []events.SQSMessage) []error {
		errs := make([]error, len(round))
		parallel.For(len(round), roundConcurrency, func(i int) {
			errs[i] = d.apply(ctx, decoded[round[i].MessageId])
		})
		return errs
	})
	return failures
}

// apply applies one queued event: its body, carried in the message or read back from
// the bucket, decoded (it was verified before it was queued), with the data source's
// connection as it is now.
// An event of a data source disconnected since is dropped: its connection, and with
// it the account's consent to the sync, is gone.
func (d *Deps) apply(ctx context.Context, m Message) error {
	conn, err := d.Connections.GetStripeConnection(ctx, m.DataSourceUUID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && conn.AccountID != m.AccountID) {
		slog.InfoContext(ctx, "stripe event of a disconnected data source dropped", "account_id", m.AccountID,
			"data_source_uuid", m.DataSourceUUID, "event_id", m.EventID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the Stripe connection: %w", err)
	}
	body := []byte(m.Event)
	if len(body) == 0 {
		if body, err = d.Events.Get(ctx, m.Key); err != nil {
			return fmt.Errorf("read the event %s: %w", m.EventID, err)
		}
	}
	var ev stripe.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return fmt.Errorf("decode the event %s: %w", m.EventID, err)
	}
	if d.Applier == nil {
		return ErrNoApplier
	}
	if err := d.Applier.ApplyEvent(ctx, conn, ev); err != nil {
		return fmt.Errorf("apply the event %s (%s): %w", m.EventID, m.EventType, err)
	}
	slog.InfoContext(ctx, "stripe event applied", "account_id", m.AccountID, "data_source_uuid", m.DataSourceUUID,
		"event_id", m.EventID, "event_type", m.EventType)
	return nil
}
