package stripegen

import (
	"bytes"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/stripesource"
)

var end = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func TestHistoryIsDeterministicForASeed(t *testing.T) {
	a, err := History(Options{Customers: 50, Seed: 7, End: end})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := History(Options{Customers: 50, Seed: 7, End: end})
	c, _ := History(Options{Customers: 50, Seed: 8, End: end})
	if len(a) != len(b) {
		t.Fatalf("%d and %d events for one seed", len(a), len(b))
	}
	for i := range a {
		if a[i].ID != b[i].ID || !bytes.Equal(a[i].Payload, b[i].Payload) {
			t.Fatalf("event %d differs for one seed", i)
		}
	}
	if len(a) == len(c) && bytes.Equal(a[len(a)-1].Payload, c[len(c)-1].Payload) {
		t.Errorf("another seed makes the same history")
	}
}

// TestHistoryDecodesVerifiesAndMaps: every event, signed as sending signs it, verifies
// with the webhook's own check and decodes into stripe-go's types; each customer's
// events are in time order; the history holds every kind of change the demo shows;
// every invoice maps to import records.
func TestHistoryDecodesVerifiesAndMaps(t *testing.T) {
	const secret = "whsec_stripegen_test_0123456789"
	events, err := History(Options{Customers: 200, Seed: 1, End: end})
	if err != nil {
		t.Fatal(err)
	}
	cat := stripesource.Catalog{Prices: map[string]*stripe.Price{}}
	for _, p := range prices {
		cat.Prices[p.ID] = p
	}
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	verifier := stripesource.Verifier{Now: func() time.Time { return now }}
	types := map[stripe.EventType]int{}
	last := map[string]time.Time{}
	var trials, prorations, cancelled, lostPayments int
	for _, d := range events {
		ev, err := verifier.Verify(d.Payload, Sign(d.Payload, secret, now), secret)
		if err != nil {
			t.Fatalf("%s (%s): %v", d.ID, d.Type, err)
		}
		if ev.ID != d.ID || ev.Type != d.Type || ev.Created != d.Created.Unix() || d.Created.After(end) {
			t.Fatalf("%s: event %s %s at %d", d.ID, ev.ID, ev.Type, ev.Created)
		}
		if d.Created.Before(last[d.Customer]) {
			t.Errorf("%s of %s before the customer's previous event", d.ID, d.Customer)
		}
		last[d.Customer] = d.Created
		types[d.Type]++
		switch d.Type {
		case stripe.EventTypeInvoiceFinalized, stripe.EventTypeInvoicePaid:
			var inv stripe.Invoice
			if err := stripesource.Object(ev, &inv); err != nil {
				t.Fatal(err)
			}
			if inv.Lines == nil {
				t.Fatalf("%s: no lines in %s", d.ID, d.Payload)
			}
			recs, err := stripesource.Invoice(&inv, nil, cat)
			if err != nil || len(recs.Invoices) != 1 || len(recs.LineItems) != len(inv.Lines.Data) {
				t.Fatalf("%s: %v %+v", d.ID, err, recs)
			}
			for _, l := range recs.LineItems {
				if l.Prorated {
					prorations++
				}
			}
		case stripe.EventTypeCustomerSubscriptionCreated:
			var s stripe.Subscription
			if err := stripesource.Object(ev, &s); err != nil {
				t.Fatal(err)
			}
			if s.Status == stripe.SubscriptionStatusTrialing {
				trials++
			}
		case stripe.EventTypeCustomerSubscriptionDeleted:
			cancelled++
		case stripe.EventTypeInvoiceMarkedUncollectible:
			lostPayments++
		}
	}
	if len(last) != 201 { // the customers and the catalog's ""
		t.Errorf("events of %d customers", len(last)-1)
	}
	for _, want := range []stripe.EventType{stripe.EventTypeCustomerCreated, stripe.EventTypeCustomerSubscriptionUpdated,
		stripe.EventTypeInvoicePaymentFailed, stripe.EventTypeRefundCreated, stripe.EventTypePriceCreated} {
		if types[want] == 0 {
			t.Errorf("no %s in %v", want, types)
		}
	}
	if trials == 0 || prorations == 0 || cancelled == 0 || lostPayments == 0 {
		t.Errorf("trials %d, proration lines %d, cancellations %d, lost payments %d", trials, prorations, cancelled, lostPayments)
	}
	t.Logf("%d events: %v", len(events), types)
}

func TestSignup(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	got := Signup("f1", at, Prices()[0])
	want := []stripe.EventType{stripe.EventTypeCustomerCreated, stripe.EventTypeCustomerSubscriptionCreated,
		stripe.EventTypeInvoiceFinalized, stripe.EventTypeInvoicePaid}
	if len(got) != len(want) {
		t.Fatalf("%d events", len(got))
	}
	v := stripesource.Verifier{Now: func() time.Time { return at }}
	for i, d := range got {
		ev, err := v.Verify(d.Payload, Sign(d.Payload, "whsec_x", at), "whsec_x")
		if err != nil || ev.Type != want[i] || d.Customer != "cus_f1" {
			t.Fatalf("event %d: %v %s %s", i, err, ev.Type, d.Customer)
		}
	}
	var inv stripe.Invoice
	ev, _ := v.Verify(got[3].Payload, Sign(got[3].Payload, "k", at), "k")
	if err := stripesource.Object(ev, &inv); err != nil || inv.StatusTransitions.PaidAt != at.Unix()+1 || inv.AmountPaid != 2900 {
		t.Errorf("paid invoice %v %+v", err, inv.StatusTransitions)
	}
}
