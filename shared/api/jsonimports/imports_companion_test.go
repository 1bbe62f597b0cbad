package jsonimports_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/recompute"
)

func TestImportIndexesSubscriptionEventsForRecompute(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Events")
	cus, _ := apitest.ImportedCustomer(t, env, acc.ID)
	ctx := context.Background()
	idx, err := env.Deps.Store.GetBillingIndex(ctx, acc.ID, cus)
	if err != nil || len(idx.Events) != 1 {
		t.Fatalf("index events %v %v", idx.Events, err)
	}
	recs, err := recompute.StoreRecords{Store: env.Deps.Store}.CustomerRecords(ctx, acc.ID, cus)
	if err != nil || len(recs.Events) != 1 || recs.Events[0].EventType != model.EventSubscriptionCancelled ||
		recs.Events[0].SubscriptionExternalID != "c00-s" || len(recs.Invoices) != 2 {
		t.Fatalf("records %+v %v", recs, err)
	}
}

func TestDeleteCustomerRemovesBillingRecords(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Delete")
	ctx := context.Background()
	cus, ds := apitest.ImportedCustomer(t, env, acc.ID)
	idx, err := env.Deps.Store.GetBillingIndex(ctx, acc.ID, cus)
	if err != nil || len(idx.Invoices) != 2 || len(idx.Subscriptions) != 1 || len(idx.Events) != 1 {
		t.Fatalf("index before delete %+v %v", idx, err)
	}
	invUUIDs := idx.SortedInvoiceUUIDs()
	var subUUIDs []string
	for u := range idx.Subscriptions {
		subUUIDs = append(subUUIDs, u)
	}
	eventIDs := idx.EventIDs()
	call := apigwtest.Call{PathParams: map[string]string{"customer_uuid": cus}, AccountID: acc.ID}
	for _, want := range []int{http.StatusNoContent, http.StatusNotFound} {
		if status, body := apitest.Do(t, env.API, "DeleteCustomer", call); status != want {
			t.Fatalf("delete: %d %v (want %d)", status, body, want)
		}
	}
	invs, err1 := env.Deps.Store.GetInvoices(ctx, acc.ID, invUUIDs)
	subs, err2 := env.Deps.Store.GetSubscriptions(ctx, acc.ID, subUUIDs)
	evs, err3 := env.Deps.Store.GetSubscriptionEvents(ctx, acc.ID, eventIDs)
	cases := []struct {
		name string
		left int
		err  error
	}{{"invoices", len(invs), err1}, {"subscriptions", len(subs), err2}, {"subscription events", len(evs), err3}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err != nil || tc.left != 0 {
				t.Fatalf("%d left, %v", tc.left, tc.err)
			}
		})
	}
	if idx, err := env.Deps.Store.GetBillingIndex(ctx, acc.ID, cus); err != nil || idx.Version != 0 {
		t.Fatalf("index survived: %+v %v", idx, err)
	}
	// The plan is no longer referenced, so it can be deleted.
	if pl, err := env.Deps.Store.GetPlanByExternalID(ctx, acc.ID, ds.UUID, "p1"); err != nil || pl.References != 0 {
		t.Fatalf("plan references %d %v", pl.References, err)
	}
}
