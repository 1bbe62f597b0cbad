package stripewebhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/stripewebhook"
	"github.com/subsight/subsight/shared/stripeworkers"
)

// sameJSON tells two JSON texts apart only by their whitespace.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var ca, cb bytes.Buffer
	if err := json.Compact(&ca, a); err != nil {
		return false
	}
	if err := json.Compact(&cb, b); err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// TestInlineAndStoredEvents: an event whose message fits InlineLimit travels in the
// message and nothing is put in the bucket; a 1 MB event, and one just over the limit,
// go to the bucket and their messages name them, as does a small one holding a
// character SQS does not take in a message. The worker applies them all, each
// decoded into the same event as delivered, from the message or from the bucket.
func TestInlineAndStoredEvents(t *testing.T) {
	f := newFixture(t)
	acc := f.env.NewAccount(t, "Stripe inline")
	ds := ids.New(ids.DataSource)
	f.connect(t, acc.ID, ds, secretA)
	tests := []struct {
		name   string
		id     string
		obj    *stripe.Invoice
		inline bool
	}{
		{"a small event", "evt_small", &stripe.Invoice{ID: "in_small", Object: "invoice", Customer: &stripe.Customer{ID: "cus_small"}}, true},
		{"an event near the limit", "evt_near", bigInvoice("in_near", "cus_near", stripewebhook.InlineLimit-8<<10), true},
		{"an event over the limit", "evt_over", bigInvoice("in_over", "cus_over", stripewebhook.InlineLimit), false},
		{"a 1 MB event", "evt_1mb", bigInvoice("in_1mb", "cus_1mb", 1<<20), false},
		{"a small event with a character SQS refuses", "evt_nontext",
			&stripe.Invoice{ID: "in_nontext", Object: "invoice", Customer: &stripe.Customer{ID: "cus_nontext"}, Description: "a\uffffb"}, false},
	}
	delivered := map[string][]byte{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, sig := signedEvent(t, tc.id, stripe.EventTypeInvoiceFinalized, tc.obj, secretA)
			delivered[tc.id] = body
			before := len(f.sent.messages())
			if status, resp := f.post(t, ds, body, sig, false); status != 200 {
				t.Fatalf("%d %s", status, resp)
			}
			sent := f.sent.messages()[before:]
			if len(sent) != 1 {
				t.Fatalf("%d messages queued", len(sent))
			}
			m, err := stripewebhook.DecodeMessage(sent[0].Body)
			if err != nil {
				t.Fatal(err)
			}
			key := stripewebhook.EventKey(acc.ID, ds, tc.id)
			stored := slices.Contains(f.stored(t), key)
			switch {
			case tc.inline && (m.Key != "" || stored || !sameJSON(t, m.Event, body) || len(sent[0].Body) > stripewebhook.InlineLimit):
				t.Errorf("not carried in its message (%d bytes): key %q, stored %v", len(sent[0].Body), m.Key, stored)
			case !tc.inline && (m.Key != key || len(m.Event) != 0 || !bytes.Equal(f.object(t, key), body)):
				t.Errorf("not stored in the bucket: key %q, %d bytes in the message", m.Key, len(sent[0].Body))
			}
		})
	}

	applier := &recordingApplier{}
	f.deps.Applier = applier
	batch := f.receive(t)
	resp, err := stripeworkers.RunEvents(f.env.Workers, f.deps)(context.Background(), batch)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%v %v", err, resp.BatchItemFailures)
	}
	if len(applier.applied) != len(tests) {
		t.Fatalf("%d events applied, want %d", len(applier.applied), len(tests))
	}
	for _, a := range applier.applied {
		var want stripe.Event
		if err := json.Unmarshal(delivered[a.ev.ID], &want); err != nil {
			t.Fatal(err)
		}
		if a.ev.Type != want.Type || !sameJSON(t, a.ev.Data.Raw, want.Data.Raw) || a.conn.DataSourceUUID != ds {
			t.Errorf("%s applied as another event than delivered", a.ev.ID)
		}
	}
}
