package imports_test

import (
	"testing"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/workers"
)

// The import reads a new customer's reservation, item and index, not the records its
// part names (it cannot hold them yet); a customer that exists has its records read.
func TestImportReadsOnlyTheRecordsOfExistingCustomers(t *testing.T) {
	f := setup(t)
	meter := ddbmeter.New()
	p := *f.env.With(meter.Client(f.env.AWS), nil).Imports
	f.p, f.handler = &p, workers.ImportCounted(&p, 20, awsclients.Throttled)
	const customers, months = 10, 12
	for _, tc := range []struct {
		name     string
		min, max float64 // read units of the import worker, per customer
	}{
		// The reservation, the customer, its index and the account; the event's external
		// id, the plan's and the plan, shared.
		{"new customers", 3, 6},
		// Besides: 12 invoices, the subscription, the event, 24 record locators.
		{"existing customers", 3 + months + 2 + 2*months, 60},
	} {
		f.accept(t, payload(tc.name, customers, months, 1000))
		meter.Reset()
		if n := f.drain(t); n != customers {
			t.Fatalf("%s: %d messages applied, want %d", tc.name, n, customers)
		}
		if per := meter.Snapshot().ReadUnits / customers; per < tc.min || per > tc.max {
			t.Errorf("%s: %.1f read units a customer, want %v to %v", tc.name, per, tc.min, tc.max)
		}
	}
}
