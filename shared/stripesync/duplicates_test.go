package stripesync_test

import (
	"context"
	"testing"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
)

// TestDeliveredTwiceAndUnknownTypes: a customer's year of monthly renewals applied, then
// every event delivered again: nothing is written, each repeat costs the one read of
// its marker, and the stored records are the same. An event of a type the source does
// not apply costs nothing. The read and write units of the last renewal's events (a
// customer with eleven months of history) are logged with DynamoDB's rules (the figure
// in docs/stripe.md).
func TestDeliveredTwiceAndUnknownTypes(t *testing.T) {
	env := newEnv(t)
	meter, reads, writes := ddbmeter.New(), &ddbmeter.ReadRecorder{}, &ddbmeter.WriteRecorder{}
	cfg := env.AWS
	reads.Attach(&cfg)
	writes.Attach(&cfg)
	s := newSync(env.With(meter.Client(cfg), env.Deps.Now))
	conn := connect(t, env, "Twice")
	var h history
	h.subscribe("2026-01-01", []*stripe.Price{priceM})
	h.monthly("2026-01-01", 12, "price_m", 5000)
	renewal := h.events[len(h.events)-3:]
	if err := deliver(s, conn, h.events[:len(h.events)-3]); err != nil {
		t.Fatal(err)
	}
	var totalRead, totalWrite float64
	for _, ev := range renewal {
		meter.Reset()
		reads.Reset()
		writes.Reset()
		if err := deliver(s, conn, []stripe.Event{ev}); err != nil {
			t.Fatal(err)
		}
		r, w := reads.Reads().Units, writes.Units()
		totalRead, totalWrite = totalRead+r, totalWrite+w
		t.Logf("%s: %.1f read units, %.1f write units (%s)", ev.Type, r, w, meter.Snapshot())
	}
	t.Logf("a renewal (%d events): %.1f read units, %.1f write units", len(renewal), totalRead, totalWrite)
	before := projection(t, env, conn, h.events)

	meter.Reset()
	reads.Reset()
	if err := deliver(s, conn, h.events); err != nil {
		t.Fatal(err)
	}
	snap := meter.Snapshot()
	if snap.Writes() != 0 || snap.DynamoDBRequests() != len(h.events) || snap.Requests["GetItem"] != len(h.events) {
		t.Errorf("%d events delivered again: %s, want one GetItem each and no write", len(h.events), snap)
	}
	if got := reads.Reads().Units; got > float64(len(h.events)) {
		t.Errorf("%.1f read units for %d repeats, want at most one each", got, len(h.events))
	}
	if after := projection(t, env, conn, h.events); after != before {
		t.Errorf("records changed by the repeats:\n got %s\nwant %s", after, before)
	}

	meter.Reset()
	unknown := stripetest.Event("evt_unknown", "customer.discount.created", day("2026-06-01"), map[string]any{"id": "di_1"}, nil)
	if err := s.ApplyEvent(context.Background(), conn, unknown); err != nil {
		t.Fatalf("unknown type: %v", err)
	}
	if snap := meter.Snapshot(); snap.DynamoDBRequests() != 0 {
		t.Errorf("an unknown type cost %s", snap)
	}
}
