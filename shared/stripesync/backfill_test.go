package stripesync_test

import (
	"context"
	"testing"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/stripesource"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
)

// TestBackfillAndEventsEndTheSame: a customer's history applied from its events, and the
// same history backfilled (the objects as the API returns them afterwards, mapped by
// stripesource) with its events delivered too, before and after, end in the same
// records.
func TestBackfillAndEventsEndTheSame(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	s := newSync(env.Deps)
	var h history
	h.subscribe("2026-01-01", []*stripe.Price{priceM})
	h.monthly("2026-01-01", 3, "price_m", 5000)

	backfilled := func() stripesource.Records {
		var recs stripesource.Records
		recs.Customers = append(recs.Customers, stripesource.Customer(&stripe.Customer{ID: "cus_1", Name: "Ada Lovelace",
			Email: "ada@example.com", Created: day("2026-01-01"), Address: &stripe.Address{Country: "GB", City: "London"}}, nil))
		cat := stripesource.Catalog{Prices: map[string]*stripe.Price{"price_m": priceM}}
		for i, m := range []string{"2026-01-01", "2026-02-01", "2026-03-01"} {
			end := []string{"2026-02-01", "2026-03-01", "2026-04-01"}[i]
			inv := stripetest.PaidInvoice("in_"+m, m, stripetest.SubLine("il_"+m, "sub_1", "si_1", "price_m", 5000, 1, m, end))
			r, err := stripesource.Invoice(inv, nil, cat)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				r.Plans = nil
			}
			recs.Add(r)
		}
		return recs
	}

	live := connect(t, env, "Live")
	if err := deliver(s, live, h.events); err != nil {
		t.Fatal(err)
	}
	both := connect(t, env, "Backfill and live")
	half := len(h.events) / 2
	if err := deliver(s, both, h.events[:half]); err != nil {
		t.Fatal(err)
	}
	if err := s.ApplyCustomer(ctx, both, "cus_1", backfilled()); err != nil {
		t.Fatal(err)
	}
	if err := deliver(s, both, h.events[half:]); err != nil {
		t.Fatal(err)
	}
	alone := connect(t, env, "Backfill alone")
	if err := s.ApplyCustomer(ctx, alone, "cus_1", backfilled()); err != nil {
		t.Fatal(err)
	}
	want := projection(t, env, live, h.events)
	if got := projection(t, env, both, h.events); got != want {
		t.Errorf("backfill and live:\n got %s\nwant %s", got, want)
	}
	if got := projection(t, env, alone, h.events); got != want {
		t.Errorf("backfill alone:\n got %s\nwant %s", got, want)
	}
}
