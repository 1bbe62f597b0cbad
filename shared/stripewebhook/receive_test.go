package stripewebhook_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/stripegen"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource"
	"github.com/subsight/subsight/shared/stripewebhook"
)

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

const (
	secretA  = "whsec_account_a_source_one_0123456789"
	secretA2 = "whsec_account_a_source_two_0123456789"
	secretB  = "whsec_account_b_source_one_0123456789"
)

func subscription(id, customer string) *stripe.Subscription {
	return &stripe.Subscription{ID: id, Object: "subscription", Customer: &stripe.Customer{ID: customer},
		Status: stripe.SubscriptionStatusActive}
}

// TestRefusedDeliveriesStoreNothing: every delivery that fails a check is a 4xx in the
// data sources' error shape, and neither the bucket nor the queue gets anything.
func TestRefusedDeliveriesStoreNothing(t *testing.T) {
	f := newFixture(t)
	accA, accB := model.NewAccountID(), model.NewAccountID()
	dsA, dsA2, dsB := ids.New(ids.DataSource), ids.New(ids.DataSource), ids.New(ids.DataSource)
	f.connect(t, accA, dsA, secretA)
	f.connect(t, accA, dsA2, secretA2)
	f.connect(t, accB, dsB, secretB)
	notConnected := ids.New(ids.DataSource) // exists or not: it has no connection

	obj := subscription("sub_1", "cus_1")
	body, _ := signedEvent(t, "evt_refused", stripe.EventTypeCustomerSubscriptionUpdated, obj, secretA)
	sign := func(secret string, at time.Time) string { return stripegen.Sign(body, secret, at) }
	notEvent := []byte(`{"object":"customer","id":"cus_1"}`)
	tests := []struct {
		name      string
		ds        string
		body      []byte
		signature string
		status    int
		message   string
	}{
		{"no signature", dsA, body, "", 400, "Stripe-Signature header is missing"},
		{"a malformed signature header", dsA, body, "v1=abc", 400, "missing or malformed"},
		{"a bad signature", dsA, body, "t=" + fmt.Sprint(now.Unix()) + ",v1=" + strings.Repeat("0", 64), 400, "No signature matches"},
		{"a body changed after signing", dsA, bytes.Replace(body, []byte("sub_1"), []byte("sub_2"), 1), sign(secretA, now), 400, "No signature matches"},
		{"a stale timestamp", dsA, body, sign(secretA, now.Add(-stripesource.DefaultTolerance-time.Second)), 400, "outside the tolerance"},
		{"a timestamp from the future", dsA, body, sign(secretA, now.Add(stripesource.DefaultTolerance+time.Second)), 400, "outside the tolerance"},
		{"the secret of another data source of the account", dsA, body, sign(secretA2, now), 400, "No signature matches"},
		{"another account's data source uuid, signed with the own secret", dsB, body, sign(secretA, now), 400, "No signature matches"},
		{"a data source not connected", notConnected, body, sign(secretA, now), 404, "not connected"},
		{"a path that is no data source uuid", "cus_nope", body, sign(secretA, now), 404, "not connected"},
		{"a body that is no event", dsA, notEvent, stripegen.Sign(notEvent, secretA, now), 400, "not a Stripe event"},
		{"an event without an id", dsA, []byte(`{"object":"event","type":"customer.created","api_version":"` + stripe.APIVersion + `","data":{"object":{}}}`),
			stripegen.Sign([]byte(`{"object":"event","type":"customer.created","api_version":"`+stripe.APIVersion+`","data":{"object":{}}}`), secretA, now),
			400, "not a Stripe event"},
		{"an event of another API release", dsA, bytes.Replace(body, []byte(stripe.APIVersion), []byte("2025-03-31.basil"), 1),
			stripegen.Sign(bytes.Replace(body, []byte(stripe.APIVersion), []byte("2025-03-31.basil"), 1), secretA, now), 400, "another Stripe API version"},
		{"a body over the limit", dsA, bytes.Repeat([]byte(" "), stripewebhook.MaxBody+1), sign(secretA, now), 413, "larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, resp := f.post(t, tc.ds, tc.body, tc.signature, false)
			if status != tc.status || !strings.Contains(resp, tc.message) {
				t.Fatalf("%d %s, want %d with %q", status, resp, tc.status, tc.message)
			}
			var shape struct {
				Error   string `json:"error"`
				Details []struct {
					Param, Code, Message string
				} `json:"error_details"`
			}
			if err := json.Unmarshal([]byte(resp), &shape); err != nil || shape.Error == "" || len(shape.Details) != 1 {
				t.Errorf("body %s is not the data sources' error shape", resp)
			}
			if strings.Contains(resp, "whsec_") {
				t.Errorf("the answer names a secret: %s", resp)
			}
		})
	}
	if keys := f.stored(t); len(keys) != 0 {
		t.Errorf("stored %v", keys)
	}
	if sent := f.sent.messages(); len(sent) != 0 {
		t.Errorf("queued %v", sent)
	}
	// A path that cannot be a data source and a request without a signature cost no read.
	if f.conns.reads.Load() != int64(len(tests)-4) {
		t.Errorf("%d connection reads for %d refusals (4 refused before any read)", f.conns.reads.Load(), len(tests))
	}
}

// TestAcceptedDeliveries: a verified event is queued once, grouped by its Stripe
// customer, carried in its message when it fits, else stored under stripe/ by account,
// data source and event id, byte for byte;
// a redelivery carries the same deduplication id; a base64 body and a 1 MB event are
// taken; an event type the sync does not read is answered 200 and neither stored nor
// queued.
func TestAcceptedDeliveries(t *testing.T) {
	f := newFixture(t)
	acc, ds := model.NewAccountID(), ids.New(ids.DataSource)
	f.connect(t, acc, ds, secretA)

	big := bigInvoice("in_big", "cus_big", 1<<20)
	tests := []struct {
		name   string
		id     string
		typ    stripe.EventType
		obj    any
		base64 bool
		group  string // "" when not queued
	}{
		{"a subscription's update", "evt_sub", stripe.EventTypeCustomerSubscriptionUpdated, subscription("sub_1", "cus_1"), false, "customer:cus_1"},
		{"a customer's creation", "evt_cus", stripe.EventTypeCustomerCreated, &stripe.Customer{ID: "cus_2", Object: "customer"}, false, "customer:cus_2"},
		{"a base64 body", "evt_b64", stripe.EventTypeInvoicePaid, &stripe.Invoice{ID: "in_1", Object: "invoice", Customer: &stripe.Customer{ID: "cus_1"}}, true, "customer:cus_1"},
		{"an invoice payment, grouped by its invoice", "evt_inpay", stripe.EventTypeInvoicePaymentPaid,
			&stripe.InvoicePayment{ID: "inpay_1", Object: "invoice_payment", Invoice: &stripe.Invoice{ID: "in_1"}}, false, "invoice:in_1"},
		{"a refund, grouped by itself", "evt_re", stripe.EventTypeRefundCreated, &stripe.Refund{ID: "re_1", Object: "refund", Amount: 100}, false, "object:re_1"},
		{"a 1 MB event", "evt_big", stripe.EventTypeInvoiceFinalized, big, false, "customer:cus_big"},
		{"a type the sync does not read", "evt_balance", stripe.EventTypeBalanceAvailable, &stripe.Balance{Object: "balance"}, false, ""},
		{"a draft invoice", "evt_draft", stripe.EventTypeInvoiceCreated, &stripe.Invoice{ID: "in_2", Object: "invoice", Customer: &stripe.Customer{ID: "cus_1"}}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, sig := signedEvent(t, tc.id, tc.typ, tc.obj, secretA)
			before := len(f.sent.messages())
			status, resp := f.post(t, ds, body, sig, tc.base64)
			if status != 200 || resp != `{"received":true}` {
				t.Fatalf("%d %s", status, resp)
			}
			key := stripewebhook.EventKey(acc, ds, tc.id)
			sent := f.sent.messages()[before:]
			if tc.group == "" {
				if len(sent) != 0 || slices.Contains(f.stored(t), key) {
					t.Fatalf("an event the sync does not read was kept: %v", sent)
				}
				return
			}
			if len(sent) != 1 {
				t.Fatalf("%d messages queued", len(sent))
			}
			m, err := stripewebhook.DecodeMessage(sent[0].Body)
			if err != nil {
				t.Fatal(err)
			}
			// A small event travels in its message; a large one in the bucket.
			wantKey := ""
			if len(body) > stripewebhook.InlineLimit {
				wantKey = key
				if !bytes.Equal(f.object(t, key), body) || len(m.Event) != 0 {
					t.Errorf("the stored body is not the delivered body, or the message carries it too")
				}
			} else if !sameJSON(t, m.Event, body) || slices.Contains(f.stored(t), key) {
				t.Errorf("the message does not carry the delivered event, or it was stored too")
			}
			if m.Group != tc.group || m.Key != wantKey || m.EventType != string(tc.typ) || m.AccountID != acc ||
				sent[0].Group != stripewebhook.MessageGroup(acc, ds, tc.group) ||
				sent[0].DedupID != stripewebhook.DeduplicationID(ds, tc.id) {
				t.Errorf("message %+v (%+v)", m, sent[0])
			}
		})
	}

	t.Run("a redelivery", func(t *testing.T) {
		body, _ := signedEvent(t, "evt_sub", stripe.EventTypeCustomerSubscriptionUpdated, subscription("sub_1", "cus_1"), secretA)
		status, _ := f.post(t, ds, body, stripegen.Sign(body, secretA, now.Add(time.Minute)), false)
		sent := f.sent.messages()
		if status != 200 || sent[len(sent)-1].DedupID != sent[0].DedupID || sent[len(sent)-1].Group != sent[0].Group {
			t.Errorf("%d; first %+v, redelivery %+v", status, sent[0], sent[len(sent)-1])
		}
		// The queue drops the redelivery (its deduplication id within five minutes).
		if n := len(f.receive(t).Records); n != 6 {
			t.Errorf("%d messages in the queue, want the 6 queued events once each", n)
		}
	})
}

// bigInvoice is an invoice whose event is at least size bytes: many lines.
func bigInvoice(id, customer string, size int) *stripe.Invoice {
	inv := &stripe.Invoice{ID: id, Object: "invoice", Customer: &stripe.Customer{ID: customer}, Currency: "usd",
		Status: stripe.InvoiceStatusOpen, Lines: &stripe.InvoiceLineItemList{}}
	for n := 0; n < size; {
		l := &stripe.InvoiceLineItem{ID: fmt.Sprintf("il_%s_%05d", id, len(inv.Lines.Data)), Object: "line_item", Amount: 1000,
			Currency: "usd", Quantity: 1, Description: "1 × Seat (at $10.00 / month)", Period: &stripe.Period{Start: 1767225600, End: 1769904000}}
		b, _ := json.Marshal(l)
		n += len(b)
		inv.Lines.Data = append(inv.Lines.Data, l)
	}
	return inv
}
