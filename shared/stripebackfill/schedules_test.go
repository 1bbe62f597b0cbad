package stripebackfill_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/stripemock"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripebackfill"
)

// TestReaderSchedules: a customer whose subscriptions name a schedule has its schedules
// listed (followed to the end, on requests stripe-mock takes) and mapped as they stand
// at the read: a phase still to start is a scheduled update of the subscription's item.
func TestReaderSchedules(t *testing.T) {
	now := time.Date(2026, 4, 20, 0, 0, 0, 0, time.UTC)
	next := now.AddDate(0, 0, 11).Unix()
	var sub, item string // the subscription last served, and its item
	var unit int64       // its price's unit amount
	patch := func(path string, o map[string]any) {
		issued(false)(path, o)
		switch path {
		case "/v1/subscriptions":
			o["schedule"] = "sub_sched_" + o["id"].(string)
			sub = o["id"].(string)
			it := o["items"].(map[string]any)["data"].([]any)[0].(map[string]any)
			item = it["id"].(string)
			unit = int64(it["price"].(map[string]any)["unit_amount"].(float64))
		case "/v1/subscription_schedules":
			o["status"], o["subscription"] = "active", sub
			o["phases"] = []any{
				map[string]any{"start_date": now.AddDate(0, 0, -19).Unix(), "end_date": next, "currency": "usd",
					"items": []any{map[string]any{"price": fixturePrice, "quantity": 1}}},
				map[string]any{"start_date": next, "end_date": nil, "currency": "usd",
					"items": []any{map[string]any{"price": fixturePrice, "quantity": 3}}},
			}
		}
	}
	mock := stripemock.ForTest(t)
	pager := stripemock.NewPager(t, mock.URL, 3, patch)
	r := stripebackfill.NewReader(stripemock.Key, stripebackfill.Options{APIBase: pager.URL(), PageSize: 2,
		CustomersPerPage: 1, Sleep: noWait, Now: func() time.Time { return now }})
	ctx := context.Background()
	prices, err := r.Prices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	customers, _, err := r.Customers(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := r.Customer(ctx, customers[0], prices)
	if err != nil {
		t.Fatal(err)
	}
	var scheduled []model.ImportEvent
	for _, e := range recs.Events {
		if e.EventType == model.EventSubscriptionUpdateScheduled {
			scheduled = append(scheduled, e)
		}
	}
	// Three schedules (each of the last subscription served): three phases to come.
	if len(scheduled) != 3 {
		t.Fatalf("scheduled updates = %+v, want 3", scheduled)
	}
	if unit == 0 {
		t.Fatal("the fixture's price has no unit amount")
	}
	for _, e := range scheduled {
		if e.SubscriptionExternalID != item || e.EffectiveDate.Unix() != next || *e.PlanExternalID != fixturePrice ||
			*e.Quantity != 3 || *e.AmountInCents != 3*unit || !strings.Contains(e.ExternalID, item) {
			t.Errorf("scheduled update %+v (item %s, unit %d)", e.EventFields, item, unit)
		}
	}
	if got := pager.Requests()["/v1/subscription_schedules"]; got != 2 {
		t.Errorf("schedule requests = %d, want 2 (three schedules, two a page)", got)
	}
	if refused := pager.Refused(); len(refused) > 0 {
		t.Errorf("stripe-mock refused: %v", refused)
	}
}
