package recompute_test

import (
	"context"
	"slices"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestRecomputeWritesOnceThenNothing(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-02-15T00:00:00Z"), false)
	f.AddInvoices(recomputetest.Monthly(2, recomputetest.At("2024-01-01T00:00:00Z"))...)

	out, cost := f.Run()
	if !out.Changed || out.Status != "Active" || out.MRR != 1000 {
		t.Fatalf("first run: %+v", out)
	}
	if cost.Writes() == 0 {
		t.Fatal("first run wrote nothing")
	}
	c := f.Customer()
	if c.MRR != 1000 || c.ARR != 12000 || c.Status != "Active" || c.CustomerSince == nil ||
		!c.CustomerSince.Equal(recomputetest.At("2024-01-01T00:00:00Z")) {
		t.Fatalf("customer %d %d %q %v", c.MRR, c.ARR, c.Status, c.CustomerSince)
	}
	rows := f.SubscriptionRows()
	if len(rows) != 1 || rows[0].MRR != 1000 || rows[0].PlanName != "Gold" || rows[0].Status != "active" ||
		rows[0].BillingCycle != "month" || rows[0].ExternalID != "s1" || !rows[0].StartDate.Equal(recomputetest.At("2024-01-01T00:00:00Z")) {
		t.Fatalf("rows %+v", rows)
	}

	for i := range 2 {
		out, cost = f.Run()
		if out.Changed || cost.Writes() != 0 {
			t.Fatalf("repeat %d: changed=%v, %d writes (%s)", i, out.Changed, cost.Writes(), cost)
		}
	}
	t.Logf("unchanged recomputation: %s, %.1f capacity units", cost, cost.TotalUnits())
	if f.Series.Applied != 3 {
		t.Fatalf("series applied %d times, want once per run", f.Series.Applied)
	}
}

func TestRecomputeWritesOnlyWhatChanged(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-06-15T00:00:00Z"), false)
	invs := recomputetest.Monthly(6, recomputetest.At("2024-01-01T00:00:00Z"))
	f.AddInvoices(invs[:5]...)
	f.Run()
	f.AddInvoices(invs[5])
	out, cost := f.Run()
	if !out.Changed || out.MRR != 1100 {
		t.Fatalf("after a new invoice: %+v", out)
	}
	// One subscription row, the state, and nothing else: the customer's figures did not
	// change (1100 from April on) and neither did the wake-up (no, it moved a month).
	if w := cost.Writes(); w > 4 {
		t.Fatalf("%d writes for one new invoice (%s)", w, cost)
	}
}

func TestRecomputePastDueAndWake(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-02-15T00:00:00Z"), false)
	f.AddInvoices(recomputetest.Monthly(2, recomputetest.At("2024-01-01T00:00:00Z"))...)
	out, _ := f.Run()
	if out.Status != "Active" || !out.WakeAt.Equal(recomputetest.At("2024-03-01T00:00:00Z")) {
		t.Fatalf("before the period ends: %+v", out)
	}
	// The sweeper finds nothing due yet, then the wake-up once the period has ended.
	due, err := f.D.Store.DueMetricsWakes(context.Background(), recomputetest.At("2024-02-14T00:00:00Z"), recomputetest.At("2024-02-15T00:00:00Z"))
	recomputetest.Must(t, err)
	if len(due) != 0 {
		t.Fatalf("due early: %+v", due)
	}
	due, err = f.D.Store.DueMetricsWakes(context.Background(), recomputetest.At("2024-02-29T00:00:00Z"), recomputetest.At("2024-03-01T00:30:00Z"))
	recomputetest.Must(t, err)
	if len(due) != 1 || due[0].CustomerUUID != f.Cust.UUID {
		t.Fatalf("due %+v", due)
	}
	f.SetNow(recomputetest.At("2024-03-01T00:30:00Z"))
	out, _ = f.Run()
	if !out.Changed || out.Status != "Past Due" || out.MRR != 1000 {
		t.Fatalf("after the period: %+v", out)
	}
	if c := f.Customer(); c.Status != "Past Due" {
		t.Fatalf("customer status %q", c.Status)
	}
}

func TestRecomputeCancellationChurns(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-04-01T00:00:00Z"), false)
	invs := recomputetest.Monthly(2, recomputetest.At("2024-01-01T00:00:00Z"))
	invs[1].Cancel = recomputetest.TP(recomputetest.At("2024-02-20T00:00:00Z"))
	f.AddInvoices(invs...)
	out, _ := f.Run()
	c := f.Customer()
	rows := f.SubscriptionRows()
	if out.Status != "Cancelled" || c.MRR != 0 || c.Status != "Cancelled" || c.CustomerSince == nil ||
		len(rows) != 1 || rows[0].Status != "inactive" {
		t.Fatalf("out %+v customer %q %d rows %+v", out, c.Status, c.MRR, rows)
	}
}

func TestRecomputeMissingRateIsInvalidUntilLoaded(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-02-15T00:00:00Z"), false)
	f.AddInvoices(recomputetest.Invoice{Ext: "eur-1", Currency: "EUR", Start: recomputetest.At("2024-02-01T00:00:00Z"), Amount: 10000, Paid: true})
	out, _ := f.Run()
	ctx := context.Background()
	invalid, err := f.D.Store.CustomerInvalidInvoices(ctx, f.Acc.ID, f.Cust.UUID)
	recomputetest.Must(t, err)
	if out.MRR != 0 || len(invalid) != 1 || invalid[0].ExternalID != "eur-1" || invalid[0].Reason == "" {
		t.Fatalf("without a rate: %+v %+v", out, invalid)
	}
	if c := f.Customer(); !slices.Contains([]string{"New Lead"}, c.Status) {
		t.Fatalf("status %q", c.Status)
	}
	recomputetest.Must(t, f.D.Store.PutFXRates(ctx, f.Acc.ID, []store.FXRate{{Day: "2024-02-01", Currency: "EUR", Rate: "1.090861"}}))
	out, _ = f.Run()
	invalid, err = f.D.Store.CustomerInvalidInvoices(ctx, f.Acc.ID, f.Cust.UUID)
	recomputetest.Must(t, err)
	if out.MRR != 10908 || len(invalid) != 0 {
		t.Fatalf("with the rate: %+v %+v", out, invalid)
	}
	if c := f.Customer(); c.MRR != 10908 || c.ARR != 130896 {
		t.Fatalf("customer %d %d", c.MRR, c.ARR)
	}
}

func TestRecomputeKeepsLeadStatusAndForgetsDeleted(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-02-15T00:00:00Z"), false)
	ctx := context.Background()
	old := f.Customer()
	next := old
	next.Status = "Working Lead"
	recomputetest.Must(t, f.D.Store.SaveCustomer(ctx, old, next))
	out, cost := f.Run()
	if out.Status != "Working Lead" {
		t.Fatalf("lead status %q", out.Status)
	}
	if c := f.Customer(); c.Status != "Working Lead" {
		t.Fatalf("stored %q", c.Status)
	}
	t.Logf("lead without records: %s", cost)
	recomputetest.Must(t, f.D.Store.DeleteCustomer(ctx, f.Customer()))
	if _, err := f.Rec.Customer(ctx, f.Acc.ID, f.Cust.UUID); err != nil {
		t.Fatal(err)
	}
	if f.Series.Removed != 1 {
		t.Fatalf("series removal not called")
	}
}

func TestRecomputeRepairsOverwrittenCustomer(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-02-15T00:00:00Z"), false)
	f.AddInvoices(recomputetest.Monthly(2, recomputetest.At("2024-01-01T00:00:00Z"))...)
	f.Run()
	// A stale full save of the customer (read before the recomputation) cannot win: the
	// recomputation bumped the version.
	ctx := context.Background()
	stale := f.Cust
	stale.Version = 1
	if err := f.D.Store.SaveCustomer(ctx, stale, stale); err == nil {
		t.Fatal("stale save succeeded")
	}
	cur := f.Customer()
	wiped := cur
	wiped.MRR, wiped.Status = 0, "New Lead"
	recomputetest.Must(t, f.D.Store.SaveCustomer(ctx, cur, wiped))
	out, cost := f.Run()
	if out.Changed || cost.Writes() != 1 {
		t.Fatalf("repair: %+v %s", out, cost)
	}
	if c := f.Customer(); c.MRR != 1000 || c.Status != "Active" {
		t.Fatalf("not repaired: %d %q", c.MRR, c.Status)
	}
}
