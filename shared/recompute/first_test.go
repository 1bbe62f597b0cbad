package recompute_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/recompute"
)

// The figures the import gives a new customer are those its first recomputation
// computes from the stored records: the recomputation then writes nothing on the item.
func TestFirstFiguresAreTheFirstRecomputation(t *testing.T) {
	at := recomputetest.At
	cancelled := at("2024-04-01T00:00:00Z")
	cases := []struct {
		name     string
		now      string
		invoices []recomputetest.Invoice
	}{
		{"active", "2024-06-15T00:00:00Z", recomputetest.Monthly(6, at("2024-01-01T00:00:00Z"))},
		{"past due", "2024-03-20T00:00:00Z", []recomputetest.Invoice{{Ext: "a", Start: at("2024-01-01T00:00:00Z"), Amount: 1000, Paid: true},
			{Ext: "b", Start: at("2024-02-01T00:00:00Z"), Amount: 1000}, {Ext: "c", Start: at("2024-03-01T00:00:00Z"), Amount: 1000}}},
		{"churned", "2024-06-15T00:00:00Z", []recomputetest.Invoice{{Ext: "a", Start: at("2024-02-01T00:00:00Z"), Amount: 1000, Paid: true},
			{Ext: "b", Start: at("2024-03-01T00:00:00Z"), Amount: 1000, Paid: true, Cancel: &cancelled}}},
		{"lead", "2024-06-15T00:00:00Z", nil},
		{"annual, euros", "2024-06-15T00:00:00Z", []recomputetest.Invoice{{Ext: "a", Currency: "EUR", Start: at("2024-01-01T00:00:00Z"), Months: 12, Amount: 120000, Paid: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := recomputetest.New(t, at(tc.now), false)
			f.AddInvoices(tc.invoices...)
			st := f.D.Store
			idx, err := st.GetBillingIndex(ctx, f.Acc.ID, f.Cust.UUID)
			recomputetest.Must(t, err)
			invs, err := st.GetInvoices(ctx, f.Acc.ID, slices.Collect(maps.Keys(idx.Invoices)))
			recomputetest.Must(t, err)
			subs, err := st.GetSubscriptions(ctx, f.Acc.ID, slices.Collect(maps.Keys(idx.Subscriptions)))
			recomputetest.Must(t, err)
			acc, err := st.GetAccount(ctx, f.Acc.ID)
			recomputetest.Must(t, err)
			before := f.Customer()
			got, err := recompute.WithFirstFigures(ctx, st, acc, at(tc.now), recompute.NewCustomer{Customer: before,
				Invoices: slices.Collect(maps.Values(invs)), Subscriptions: slices.Collect(maps.Values(subs)), Plans: []model.Plan{f.Plan}})
			recomputetest.Must(t, err)

			f.Run()
			want := f.Customer()
			if got.MRR != want.MRR || got.ARR != want.ARR || got.Status != want.Status || got.ActiveQuantity != want.ActiveQuantity ||
				!slices.Equal(got.BillingCurrencies, want.BillingCurrencies) || !slices.Equal(got.Tags, want.Tags) ||
				(got.CustomerSince == nil) != (want.CustomerSince == nil) || got.CustomerSince != nil && !got.CustomerSince.Equal(*want.CustomerSince) {
				t.Fatalf("first figures %d %d %q %v %v %d %v, the recomputation wrote %d %d %q %v %v %d %v",
					got.MRR, got.ARR, got.Status, got.CustomerSince, got.BillingCurrencies, got.ActiveQuantity, got.Tags,
					want.MRR, want.ARR, want.Status, want.CustomerSince, want.BillingCurrencies, want.ActiveQuantity, want.Tags)
			}
			if tc.invoices != nil && want.Version == before.Version {
				t.Fatal("the recomputation wrote no figures: the case proves nothing")
			}
		})
	}
}
