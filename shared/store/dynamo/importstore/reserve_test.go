package importstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/store"
)

// TestReserveImportedCustomers: the reservations of a round go in one transaction;
// an external id held by another customer is a conflict for that one only, the
// others are taken; taking an id again for its own customer (a retry) succeeds.
func TestReserveImportedCustomers(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	db := env.Deps.Store
	const acc, ds = "acc_reserve", "ds_reserve"
	r := func(ext, uuid string) store.CustomerReservation {
		return store.CustomerReservation{AccountID: acc, DataSourceUUID: ds, ExternalID: ext, CustomerUUID: uuid}
	}
	if err := db.ReserveImportedCustomers(ctx, []store.CustomerReservation{r("held", "cus_other")})[0]; err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		rs   []store.CustomerReservation
		want []error
	}{
		{"one", []store.CustomerReservation{r("a", "cus_a")}, []error{nil}},
		{"several new ones", []store.CustomerReservation{r("b", "cus_b"), r("c", "cus_c"), r("d", "cus_d")}, []error{nil, nil, nil}},
		{"one held by another customer", []store.CustomerReservation{r("e", "cus_e"), r("held", "cus_mine"), r("f", "cus_f")},
			[]error{nil, store.ErrConflict, nil}},
		{"all held", []store.CustomerReservation{r("held", "cus_x"), r("a", "cus_y")}, []error{store.ErrConflict, store.ErrConflict}},
		{"a retry of taken ones", []store.CustomerReservation{r("b", "cus_b"), r("c", "cus_c"), r("g", "cus_g")}, []error{nil, nil, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := db.ReserveImportedCustomers(ctx, tc.rs)
			for i, want := range tc.want {
				if !errors.Is(errs[i], want) {
					t.Errorf("%s: got %v, want %v", tc.rs[i].ExternalID, errs[i], want)
				}
				holder, err := db.CustomerUUIDByExternalID(ctx, acc, ds, tc.rs[i].ExternalID)
				wantHolder := tc.rs[i].CustomerUUID
				if want != nil {
					wantHolder = map[string]string{"held": "cus_other", "a": "cus_a"}[tc.rs[i].ExternalID]
				}
				if err != nil || holder != wantHolder {
					t.Errorf("%s: held by %q (%v), want %q", tc.rs[i].ExternalID, holder, err, wantHolder)
				}
			}
		})
	}
	// More than one transaction holds.
	var many []store.CustomerReservation
	for i := range 120 {
		many = append(many, r(fmt.Sprint("m", i), fmt.Sprint("cus_m", i)))
	}
	for i, err := range db.ReserveImportedCustomers(ctx, many) {
		if err != nil {
			t.Errorf("%s: %v", many[i].ExternalID, err)
		}
	}
}
