package stripesync_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
	"github.com/subsight/subsight/shared/stripesync"
)

// fakeReader serves prices and counts the reads.
type fakeReader struct {
	prices map[string]*stripe.Price
	reads  int
}

func (r *fakeReader) Price(_ context.Context, id string) (*stripe.Price, error) {
	r.reads++
	if p, ok := r.prices[id]; ok {
		return p, nil
	}
	return nil, errors.New("no such price")
}

func (r *fakeReader) InvoiceLines(context.Context, string) ([]*stripe.InvoiceLineItem, error) {
	return nil, errors.New("not served")
}

func (r *fakeReader) InvoiceOfPayment(context.Context, string, string) (string, error) {
	return "", nil
}

// TestEventsWaitingForOthers: an invoice whose price no event brought yet waits three
// deliveries, is then applied with a one_time line, and becomes a subscription line
// with the invoice's next event once the subscription brought the price; with an API
// key the price is read at once, and once. An invoice payment of an invoice never
// applied waits three deliveries and is dropped.
func TestEventsWaitingForOthers(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	s := newSync(env.Deps)
	conn := connect(t, env, "Waiting")
	line := func(inv, price string) *stripe.InvoiceLineItem {
		return stripetest.SubLine("il_"+inv, "sub_1", "si_1", price, 5000, 1, "2026-01-01", "2026-02-01")
	}
	paid := stripetest.PaidInvoice("in_1", "2026-01-01", line("in_1", "price_m"))
	open := stripetest.OpenInvoice("in_1", "2026-01-01", line("in_1", "price_m"))
	finalized := stripetest.Event("evt_fin", stripe.EventTypeInvoiceFinalized, day("2026-01-01")+1, open, nil)
	for i := range 3 {
		if err := s.ApplyEvent(ctx, conn, finalized); !errors.Is(err, stripesync.ErrNotYet) {
			t.Fatalf("delivery %d: %v, want ErrNotYet", i+1, err)
		}
	}
	if err := s.ApplyEvent(ctx, conn, finalized); err != nil {
		t.Fatal(err)
	}
	lineType := func(c model.StripeConnection, id string) string {
		inv := invoice(t, env, c, id)
		if len(inv.LineItems) != 1 {
			t.Fatalf("lines %+v", inv.LineItems)
		}
		return inv.LineItems[0].Type
	}
	if got := lineType(conn, "in_1"); got != "one_time" {
		t.Fatalf("without its price the line is %q, want one_time", got)
	}
	sub := stripetest.Subscription("sub_1", "si_1")
	sub.Items.Data[0].Price = priceM
	for _, ev := range []stripe.Event{
		stripetest.Event("evt_sub", stripe.EventTypeCustomerSubscriptionCreated, day("2026-01-01"), sub, nil),
		stripetest.Event("evt_paid", stripe.EventTypeInvoicePaid, day("2026-01-01")+2, paid, nil),
	} {
		if err := s.ApplyEvent(ctx, conn, ev); err != nil {
			t.Fatal(err)
		}
	}
	if got := lineType(conn, "in_1"); got != "subscription" {
		t.Fatalf("after the price came the line is %q, want subscription", got)
	}

	payment := stripetest.Event("evt_pay", stripe.EventTypeInvoicePaymentPaid, day("2026-02-01"), &stripe.InvoicePayment{ID: "inpay_x",
		Invoice: &stripe.Invoice{ID: "in_never"}, AmountPaid: 5000, Currency: "usd", Status: "paid",
		StatusTransitions: &stripe.InvoicePaymentStatusTransitions{PaidAt: day("2026-02-01")}}, nil)
	for i := range 3 {
		if err := s.ApplyEvent(ctx, conn, payment); !errors.Is(err, stripesync.ErrNotYet) {
			t.Fatalf("payment delivery %d: %v, want ErrNotYet", i+1, err)
		}
	}
	if err := s.ApplyEvent(ctx, conn, payment); err != nil {
		t.Fatalf("the payment is dropped at last: %v", err)
	}

	reader := &fakeReader{prices: map[string]*stripe.Price{"price_r": stripetest.Monthly("price_r")}}
	keyed := stripesync.New(stripesync.Config{Pipeline: env.Deps.Imports, Store: env.Deps.Store, Jobs: env.Deps.Jobs, Now: env.Deps.Now,
		Readers: func(context.Context, model.StripeConnection) (stripesync.Reader, error) { return reader, nil }})
	withKey := connect(t, env, "With a key")
	for i, id := range []string{"in_r1", "in_r2"} {
		ev := stripetest.Event("evt_"+id, stripe.EventTypeInvoicePaid, day("2026-01-01")+int64(i), stripetest.PaidInvoice(id, "2026-01-01", line(id, "price_r")), nil)
		if err := keyed.ApplyEvent(ctx, withKey, ev); err != nil {
			t.Fatal(err)
		}
		if got := lineType(withKey, id); got != "subscription" {
			t.Fatalf("%s: line %q, want subscription", id, got)
		}
	}
	if reader.reads != 1 {
		t.Errorf("the price was read %d times, want once", reader.reads)
	}
}
