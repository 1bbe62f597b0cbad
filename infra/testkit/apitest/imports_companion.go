package apitest

import (
	"net/http"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
)

// ImportedCustomer imports customer c00 of fiftyCustomers (two invoices with line
// items and payments, one subscription, one cancellation event) and returns its uuid.
func ImportedCustomer(t *testing.T, env *testenv.Env, accountID string) (string, model.DataSource) {
	t.Helper()
	ds := env.NewDataSource(t, accountID, "Billing")
	p := FiftyCustomers("one")
	for k, n := range map[string]int{"customers": 1, "invoices": 2, "line_items": 2, "transactions": 2, "subscription_events": 1} {
		p[k] = p[k].([]any)[:n]
	}
	if status, body := Do(t, env.API, "CreateJsonImport", apigwtest.Call{
		PathParams: map[string]string{"data_source_uuid": ds.UUID}, Body: p, AccountID: accountID}); status != http.StatusOK {
		t.Fatalf("import: %d %v", status, body)
	}
	env.DrainImports(t)
	return CustomerByExternalID(t, env, accountID, ds.UUID, "c00"), ds
}
