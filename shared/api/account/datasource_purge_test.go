package account_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// sourceImport is one customer's billing history in a data source: a monthly plan,
// two invoices (subscription line item and payment each, the second one current) and
// a subscription event, all with external ids prefixed by the customer's.
func sourceImport(customers []string, plan string, amount int, now time.Time) map[string]any {
	day := func(d int) string { return now.AddDate(0, 0, d).Format("2006-01-02") }
	var cs, invs, lines, txs, evs []any
	for _, c := range customers {
		cs = append(cs, map[string]any{"external_id": c, "name": "Customer " + c})
		for i, start := range []int{-40, -10} {
			inv := fmt.Sprintf("%s-i%d", c, i+1)
			invs = append(invs, map[string]any{"external_id": inv, "customer_external_id": c, "date": day(start), "currency": "USD"})
			lines = append(lines, map[string]any{"invoice_external_id": inv, "type": "subscription", "amount_in_cents": amount,
				"plan_external_id": plan, "subscription_external_id": c + "-s", "service_period_start": day(start),
				"service_period_end": day(start + 30), "external_id": inv + "-li"})
			txs = append(txs, map[string]any{"invoice_external_id": inv, "type": "payment", "result": "successful",
				"date": day(start), "external_id": inv + "-tr"})
		}
		evs = append(evs, map[string]any{"customer_external_id": c, "event_type": "subscription_cancellation_scheduled",
			"event_date": day(-5), "effective_date": day(60), "subscription_external_id": c + "-s", "external_id": c + "-ev"})
	}
	return map[string]any{"external_id": plan + "-import", "customers": cs,
		"plans":    []any{map[string]any{"external_id": plan, "name": plan, "interval_count": 1, "interval_unit": "month"}},
		"invoices": invs, "line_items": lines, "transactions": txs, "subscription_events": evs}
}

// mergeCustomers merges customer from into customer into, as POST /v1/customers/merges
// does; the jobs worker does the rest.
func mergeCustomers(t *testing.T, d *api.Deps, accountID, from, into string) {
	t.Helper()
	if status, body := apitest.Do(t, d, "MergeCustomers", apigwtest.Call{
		Body:      map[string]any{"from": map[string]any{"customer_uuid": from}, "into": map[string]any{"customer_uuid": into}},
		AccountID: accountID}); status != http.StatusAccepted {
		t.Fatalf("merge: %d %v", status, body)
	}
}

// TestPurgeDataSourceOfMergedCustomer: a customer merged from two data sources keeps
// its other source's records when one source is deleted; everything of the purged
// source goes, and the customer is recomputed without it.
func TestPurgeDataSourceOfMergedCustomer(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Purge")
	ctx := context.Background()
	d, now := env.API, env.Deps.Now()
	keep, gone := env.NewDataSource(t, acc.ID, "Keep"), env.NewDataSource(t, acc.ID, "Gone")
	importIDs := map[string]string{}
	for _, in := range []struct {
		ds        model.DataSource
		customers []string
		plan      string
		amount    int
	}{{keep, []string{"k"}, "pk", 1000}, {gone, []string{"g", "solo"}, "pg", 3000}} {
		status, body := apitest.Do(t, d, "CreateJsonImport", apigwtest.Call{
			PathParams: map[string]string{"data_source_uuid": in.ds.UUID}, Body: sourceImport(in.customers, in.plan, in.amount, now),
			AccountID: acc.ID})
		if status != http.StatusOK {
			t.Fatalf("import: %d %v", status, body)
		}
		importIDs[in.ds.UUID] = body["id"].(string)
	}
	env.DrainImports(t)
	runJobs := func() { env.DrainJobs(t, workers.Jobs(env.Workers)) }
	runJobs()
	k := apitest.CustomerByExternalID(t, env, acc.ID, keep.UUID, "k")
	g := apitest.CustomerByExternalID(t, env, acc.ID, gone.UUID, "g")
	solo := apitest.CustomerByExternalID(t, env, acc.ID, gone.UUID, "solo")
	mergeCustomers(t, d, acc.ID, g, k)
	runJobs()
	merged, err := d.Store.GetCustomer(ctx, acc.ID, k)
	if err != nil || len(merged.DataSourceUUIDs) != 2 || merged.MRR != 4000 {
		t.Fatalf("merged customer: %+v %v", merged, err)
	}

	if status, body := apitest.Do(t, d, "DeleteDataSource", apigwtest.Call{
		PathParams: map[string]string{"uuid": gone.UUID}, AccountID: acc.ID}); status != http.StatusNoContent {
		t.Fatalf("delete data source: %d %v", status, body)
	}
	runJobs()

	invoice := func(ds model.DataSource, ext string) string { return model.InvoiceUUID(acc.ID, ds.UUID, ext) }
	sub := func(ds model.DataSource, ext string) string { return model.SubscriptionUUID(acc.ID, ds.UUID, ext) }
	event := func(ds model.DataSource, ext string) int64 { return model.ExternalEventID(acc.ID, ds.UUID, ext) }
	kept, err := d.Store.GetCustomer(ctx, acc.ID, k)
	if err != nil {
		t.Fatalf("merged customer deleted: %v", err)
	}
	idx, err := d.Store.GetBillingIndex(ctx, acc.ID, k)
	if err != nil {
		t.Fatal(err)
	}
	invs, err := d.Store.GetInvoices(ctx, acc.ID, []string{invoice(keep, "k-i1"), invoice(keep, "k-i2"),
		invoice(gone, "g-i1"), invoice(gone, "g-i2"), invoice(gone, "solo-i1"), invoice(gone, "solo-i2")})
	if err != nil {
		t.Fatal(err)
	}
	subs, err := d.Store.GetSubscriptions(ctx, acc.ID, []string{sub(keep, "k-s"), sub(gone, "g-s"), sub(gone, "solo-s")})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := d.Store.GetSubscriptionEvents(ctx, acc.ID, []int64{event(keep, "k-ev"), event(gone, "g-ev"), event(gone, "solo-ev")})
	if err != nil {
		t.Fatal(err)
	}
	_, soloErr := d.Store.GetCustomer(ctx, acc.ID, solo)
	_, extErr := d.Store.CustomerUUIDByExternalID(ctx, acc.ID, gone.UUID, "g")
	_, dsErr := d.Store.GetDataSource(ctx, acc.ID, gone.UUID)
	statusItems, sourceItems := 0, 0
	for _, pk := range keys.ImportCustomersPartitions(acc.ID, importIDs[gone.UUID]) {
		statusItems += env.PartitionSize(t, pk)
	}
	for _, pk := range keys.DataSourcePartitions(acc.ID, gone.UUID) {
		sourceItems += env.PartitionSize(t, pk)
	}
	keptInvoice := invs[invoice(keep, "k-i2")]
	cases := []struct {
		name string
		ok   bool
		got  any
	}{
		{"customer keeps only the other source", slices.Equal(kept.DataSourceUUIDs, []string{keep.UUID}) &&
			slices.Equal(kept.ExternalIDs, []string{"k"}) && kept.DataSourceUUID == keep.UUID && kept.ExternalID == "k", kept},
		{"purged source's invoices are gone", len(invs) == 2, len(invs)},
		{"other source's invoices keep their line items and transactions",
			len(keptInvoice.LineItems) == 1 && len(keptInvoice.Transactions) == 1 && keptInvoice.CustomerUUID == k, keptInvoice},
		{"purged source's subscriptions are gone", len(subs) == 1 && subs[sub(keep, "k-s")].UUID != "", subs},
		{"purged source's events are gone", len(evs) == 1 && evs[event(keep, "k-ev")].ID != 0, evs},
		{"index lists the other source only", len(idx.Invoices) == 2 && idx.Invoices[invoice(keep, "k-i1")] != 0 &&
			len(idx.Subscriptions) == 1 && len(idx.Events) == 1 && len(idx.Plans) == 1, idx},
		{"external id of the purged source is released", errors.Is(extErr, store.ErrNotFound), extErr},
		{"customer of the purged source only is deleted", errors.Is(soloErr, store.ErrNotFound), soloErr},
		{"import status items are gone", statusItems == 0, statusItems},
		{"the source's partitions (plans, imports, reservation shards) are empty", sourceItems == 0, sourceItems},
		{"data source is gone", errors.Is(dsErr, store.ErrNotFound), dsErr},
		{"customer recomputed without the purged source", kept.MRR == 1000, kept.MRR},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Fatalf("got %+v", tc.got)
			}
		})
	}
	// The listings agree.
	_, list := apitest.Do(t, d, "ListInvoices", apigwtest.Call{AccountID: acc.ID})
	if got := list["invoices"].([]any); len(got) != 2 || list["has_more"] != false {
		t.Fatalf("invoices after purge: %v", list)
	}
}
