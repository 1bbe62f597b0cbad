package account_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

type check struct {
	name string
	ok   bool
	got  any
}

// TestEmptyDataSource sends what chartmogul-go v4.3.0 sends for EmptyDataSource and
// PurgeDataSource (datasources.go: a DELETE of data_sources/:uuid/all and of
// data_sources/:uuid/dependent, without a body, through generic.go's delete, which
// takes any 2xx) after the import its integration test makes
// (integration_tests/empty_data_source_test.go: a plan, a customer, an invoice), and
// reads what that test reads afterwards (the customer's invoices, the source's
// customers). The source's other data and the other sources are checked too: /all
// leaves an empty source, a customer merged with another source keeping that one;
// /dependent leaves the customers, without records, under their external ids.
func TestEmptyDataSource(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	d, now := env.API, env.Deps.Now()
	runJobs := func() { env.DrainJobs(t, workers.Jobs(env.Workers)) }
	for _, tc := range []struct {
		op            string
		keepCustomers bool
	}{
		{op: "EmptyDataSource"},
		{op: "PurgeDataSourceDependents", keepCustomers: true},
	} {
		t.Run(tc.op, func(t *testing.T) {
			acc := env.NewAccount(t, "Empty")
			other, ds := env.NewDataSource(t, acc.ID, "Other"), env.NewDataSource(t, acc.ID, "Emptied")
			importInto := func(s model.DataSource, cs []string, plan string, amount int) {
				t.Helper()
				if status, body := apitest.Do(t, d, "CreateJsonImport", apigwtest.Call{PathParams: map[string]string{"data_source_uuid": s.UUID},
					Body: sourceImport(cs, plan, amount, now), AccountID: acc.ID}); status != http.StatusOK {
					t.Fatalf("import: %d %v", status, body)
				}
				env.DrainImports(t)
				runJobs()
			}
			importInto(other, []string{"k"}, "pk", 1000)
			importInto(ds, []string{"m", "solo"}, "pe", 3000)
			k := apitest.CustomerByExternalID(t, env, acc.ID, other.UUID, "k")
			m := apitest.CustomerByExternalID(t, env, acc.ID, ds.UUID, "m")
			solo := apitest.CustomerByExternalID(t, env, acc.ID, ds.UUID, "solo")
			mergeCustomers(t, d, acc.ID, m, k)
			runJobs()
			soloBefore, err := d.Store.GetCustomer(ctx, acc.ID, solo)
			if err != nil {
				t.Fatal(err)
			}

			call := func(accountID, uuid string) (int, map[string]any) {
				return apitest.Do(t, d, tc.op, apigwtest.Call{PathParams: map[string]string{"uuid": uuid}, AccountID: accountID})
			}
			intruder := env.NewAccount(t, "Intruder")
			if status, body := call(intruder.ID, ds.UUID); status != http.StatusNotFound ||
				body["error"] != "Data source not found" {
				t.Fatalf("another account's source: %d %v", status, body)
			}
			runJobs()
			if _, err := d.Store.GetCustomer(ctx, acc.ID, solo); err != nil {
				t.Fatalf("another account's request emptied the source: %v", err)
			}
			if status, body := call(acc.ID, ds.UUID); status != http.StatusNoContent || body != nil {
				t.Fatalf("%s: %d %v", tc.op, status, body)
			}
			runJobs()

			get := func(op string, path map[string]string, q url.Values) map[string]any {
				t.Helper()
				status, body := apitest.Do(t, d, op, apigwtest.Call{PathParams: path, Query: q, AccountID: acc.ID})
				if status != http.StatusOK {
					t.Fatalf("%s: %d %v", op, status, body)
				}
				return body
			}
			inDS := url.Values{"data_source_uuid": {ds.UUID}}
			sourceCustomers := get("ListCustomers", nil, inDS)["entries"].([]any)
			plans := get("ListPlans", nil, inDS)["plans"].([]any)
			invoices := get("ListInvoices", nil, inDS)["invoices"].([]any)
			imports := get("ListJsonImports", map[string]string{"data_source_uuid": ds.UUID}, nil)["json_imports"].([]any)
			source := get("GetDataSource", map[string]string{"uuid": ds.UUID}, nil)
			kept, err := d.Store.GetCustomer(ctx, acc.ID, k)
			if err != nil {
				t.Fatal(err)
			}
			otherInvoices := get("ListInvoices", nil, url.Values{"data_source_uuid": {other.UUID}})["invoices"].([]any)
			_, soloErr := d.Store.GetCustomer(ctx, acc.ID, solo)
			checks := []check{
				{"the source stays", source["uuid"] == ds.UUID && source["status"] == "idle", source},
				{"its invoices are gone", len(invoices) == 0, invoices},
				{"its plans are gone", len(plans) == 0, plans},
				{"its imports are gone", len(imports) == 0, imports},
				{"the other source's invoices stay", len(otherInvoices) == 2, otherInvoices},
			}
			if tc.keepCustomers {
				checks = append(checks,
					check{"its customers stay", len(sourceCustomers) == 2, sourceCustomers},
					check{"a customer of the source alone stays, recomputed without its records", soloErr == nil, soloErr},
					check{"the merged customer keeps both sources and the other one's MRR", len(kept.DataSourceUUIDs) == 2 && kept.MRR == 1000, kept})
			} else {
				checks = append(checks,
					check{"its customers are gone", len(sourceCustomers) == 0, sourceCustomers},
					check{"a customer of the source alone is deleted", errors.Is(soloErr, store.ErrNotFound), soloErr},
					check{"the merged customer keeps the other source only", len(kept.DataSourceUUIDs) == 1 &&
						kept.DataSourceUUIDs[0] == other.UUID && kept.MRR == 1000, kept})
			}
			for _, c := range checks {
				if !c.ok {
					t.Errorf("%s: got %+v", c.name, c.got)
				}
			}
			if tc.keepCustomers {
				// The customer's invoices, as the Go client's test reads them after emptying.
				listed := get("ListImportInvoices",
					map[string]string{"customer_uuid": solo}, nil)
				if got := listed["invoices"].([]any); len(got) != 0 {
					t.Errorf("the customer's invoices: %v", got)
				}
			}

			// The emptied source takes the same import again: its external ids are free
			// (a new customer, with a new id), or, with the customers kept, still theirs.
			importInto(ds, []string{"m", "solo"}, "pe", 3000)
			again, err := d.Store.GetCustomer(ctx, acc.ID, apitest.CustomerByExternalID(t, env, acc.ID, ds.UUID, "solo"))
			if err != nil || tc.keepCustomers != (again.ID == soloBefore.ID) {
				t.Errorf("re-imported customer: id %d, was %d (%v)", again.ID, soloBefore.ID, err)
			}
			if got := get("ListInvoices", nil, inDS)["invoices"].([]any); len(got) != 4 {
				t.Errorf("invoices after the import again: %d", len(got))
			}

			// A source being deleted is not found.
			if status, body := apitest.Do(t, d, "DeleteDataSource", apigwtest.Call{PathParams: map[string]string{"uuid": ds.UUID}, AccountID: acc.ID}); status != http.StatusNoContent {
				t.Fatalf("delete: %d %v", status, body)
			}
			if status, body := call(acc.ID, ds.UUID); status != http.StatusNotFound {
				t.Fatalf("%s of a source being deleted: %d %v", tc.op, status, body)
			}
			runJobs()
		})
	}
}
