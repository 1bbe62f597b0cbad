package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// TestListingPagesAreBoundedInRequests: a page of GET /v1/invoices without a customer
// filter, and of GET /v1/subscription_events, costs a small fixed number of DynamoDB
// requests (counted on the store's client) whatever the size of the account, here 50
// imported customers with 100 invoices and 50 events, and 150 customers
// without invoices in another source; following the cursors returns every matching item
// exactly once, pages that reach the bound early coming back short with has_more.
func TestListingPagesAreBoundedInRequests(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Bounded")
	ctx := context.Background()
	ds, empty := env.NewDataSource(t, acc.ID, "Billing"), env.NewDataSource(t, acc.ID, "Leads")
	if status, body := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{
		PathParams: map[string]string{"data_source_uuid": ds.UUID}, Body: apitest.FiftyCustomers("bounded"), AccountID: acc.ID}); status != http.StatusOK {
		t.Fatalf("import: %d %v", status, body)
	}
	env.DrainImports(t)
	for i := range 150 {
		id, err := env.Deps.Store.NextCustomerID(ctx, acc.ID)
		if err != nil {
			t.Fatal(err)
		}
		xid := fmt.Sprintf("lead-%03d", i)
		if err := env.Deps.Store.CreateCustomer(ctx, model.Customer{AccountID: acc.ID, UUID: ids.New(ids.Customer), ID: id,
			DataSourceUUID: empty.UUID, DataSourceUUIDs: []string{empty.UUID}, ExternalID: xid, ExternalIDs: []string{xid},
			Name: xid, Status: model.StatusNewLead, CreatedAt: env.Deps.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	meter := ddbmeter.New()
	d := env.With(meter.Client(env.AWS), nil).API()
	const shards = keys.ListingShards // the customer and event listings' index partitions

	cases := []struct {
		name       string
		op, key    string
		query      url.Values
		want       int // matching items
		firstPage  int // DynamoDB requests of the first page
		maxPerPage int // DynamoDB requests of any page
	}{
		// A walk page: at most 8 requests started (store.invoicePageRequests; a round of
		// the customer listing is one Query per shard), the last round's invoice reads
		// (3) and the handler's data source read.
		{"invoices", "ListInvoices", "invoices", url.Values{"per_page": {"7"}}, 100, shards + 2, 12},
		{"invoices of a data source", "ListInvoices", "invoices",
			url.Values{"per_page": {"7"}, "data_source_uuid": {ds.UUID}}, 100, shards + 3, 12},
		{"invoices of a source whose customers have none", "ListInvoices", "invoices",
			url.Values{"per_page": {"1"}, "data_source_uuid": {empty.UUID}}, 0, 12, 12},
		{"invoices by external id", "ListInvoices", "invoices", url.Values{"external_id": {"c07-i2"}}, 1, 2, 2},
		// A page Query per shard, and on the first page a Select COUNT one per shard.
		{"subscription events", "ListSubscriptionEvents", "subscription_events", url.Values{"per_page": {"7"}}, 50, 2 * shards, 2 * shards},
		// At most 4 Queries shared among the shards (store.eventPageRequests) and the count.
		{"subscription events of one customer", "ListSubscriptionEvents", "subscription_events",
			url.Values{"per_page": {"7"}, "customer_external_id": {"c42"}}, 1, 4 + shards, 4 + shards},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[string]bool{}
			q := tc.query
			most, pages := 0, 0
			for page := 1; ; page++ {
				meter.Reset()
				status, body := apitest.Do(t, d, tc.op, apigwtest.Call{Query: q, AccountID: acc.ID})
				if status != http.StatusOK {
					t.Fatalf("page %d: %d %v", page, status, body)
				}
				bound := tc.maxPerPage
				if page == 1 {
					bound = tc.firstPage
				}
				n := meter.Snapshot().TotalRequests()
				if n > bound {
					t.Fatalf("page %d cost %d DynamoDB requests, want at most %d: %v", page, n, bound, meter.Snapshot().Requests)
				}
				most, pages = max(most, n), page
				for _, raw := range body[tc.key].([]any) {
					id := fmt.Sprint(raw.(map[string]any)["uuid"], raw.(map[string]any)["id"])
					if seen[id] {
						t.Fatalf("page %d repeats %s", page, id)
					}
					seen[id] = true
				}
				if body["has_more"] != true {
					break
				}
				if page > 200 {
					t.Fatal("the cursor does not advance")
				}
				q = url.Values{"per_page": tc.query["per_page"], "cursor": {body["cursor"].(string)}}
				for k, v := range tc.query {
					if k != "per_page" {
						q[k] = v
					}
				}
			}
			t.Logf("%d pages, at most %d requests a page", pages, most)
			if len(seen) != tc.want {
				t.Fatalf("%d items listed, want %d", len(seen), tc.want)
			}
		})
	}
}
