package imports_test

import (
	"context"
	"slices"
	"testing"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// A customer the import creates carries the figures its first recomputation computes:
// that recomputation, run after, finds the item up to date and leaves it.
func TestImportedCustomerHasItsFirstFigures(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	f.accept(t, payload("first", 2, 12, 1500))
	if n := f.drain(t); n != 2 {
		t.Fatalf("%d messages applied, want 2", n)
	}
	st := f.env.Deps.Store
	for _, ext := range []string{"cus-0", "cus-1"} {
		uuid := store.ImportedCustomerUUID(f.acc.ID, f.ds.UUID, ext)
		imported, err := st.GetCustomer(ctx, f.acc.ID, uuid)
		if err != nil {
			t.Fatal(err)
		}
		if imported.MRR != 1500 || model.IsLead(imported.Status) || imported.CustomerSince == nil {
			t.Fatalf("%s imported with %d %q %v, want its figures", ext, imported.MRR, imported.Status, imported.CustomerSince)
		}
		out, err := f.env.Workers.Recomputer().Customer(ctx, f.acc.ID, uuid)
		if err != nil {
			t.Fatal(err)
		}
		recomputed, err := st.GetCustomer(ctx, f.acc.ID, uuid)
		if err != nil {
			t.Fatal(err)
		}
		if !out.Changed || recomputed.Version != imported.Version || recomputed.MRR != imported.MRR || recomputed.ARR != imported.ARR ||
			recomputed.Status != imported.Status || !recomputed.CustomerSince.Equal(*imported.CustomerSince) ||
			!slices.Equal(recomputed.BillingCurrencies, imported.BillingCurrencies) || recomputed.ActiveQuantity != imported.ActiveQuantity {
			t.Fatalf("%s: the recomputation (changed %v) rewrote the item: version %d -> %d, %d %d %q -> %d %d %q", ext, out.Changed,
				imported.Version, recomputed.Version, imported.MRR, imported.ARR, imported.Status, recomputed.MRR, recomputed.ARR, recomputed.Status)
		}
	}
}
