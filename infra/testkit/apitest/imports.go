package apitest

import (
	"context"
	"fmt"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/store"
)

func FiftyCustomers(externalID string) map[string]any {
	var customers, invoices, lines, txs, evs []any
	for c := range 50 {
		cid := fmt.Sprintf("c%02d", c)
		customers = append(customers, map[string]any{"external_id": cid, "name": "Customer " + cid})
		for m := 1; m <= 2; m++ {
			iid := fmt.Sprintf("%s-i%d", cid, m)
			invoices = append(invoices, map[string]any{"external_id": iid, "customer_external_id": cid,
				"date": fmt.Sprintf("2024-0%d-01", m), "currency": "USD"})
			lines = append(lines, map[string]any{"invoice_external_id": iid, "type": "subscription", "amount_in_cents": 1000,
				"plan_external_id": "p1", "subscription_external_id": cid + "-s", "service_period_start": fmt.Sprintf("2024-0%d-01", m),
				"service_period_end": fmt.Sprintf("2024-0%d-01", m+1)})
			txs = append(txs, map[string]any{"invoice_external_id": iid, "type": "payment", "result": "successful", "date": fmt.Sprintf("2024-0%d-02", m)})
		}
		evs = append(evs, map[string]any{"customer_external_id": cid, "event_type": "subscription_cancelled",
			"event_date": "2024-03-01", "effective_date": "2024-03-01", "subscription_external_id": cid + "-s"})
	}
	return map[string]any{"external_id": externalID, "customers": customers,
		"plans":    []any{map[string]any{"external_id": "p1", "name": "Basic", "interval_count": 1, "interval_unit": "month"}},
		"invoices": invoices, "line_items": lines, "transactions": txs, "subscription_events": evs}
}

func CustomerByExternalID(t *testing.T, env *testenv.Env, accountID, dsUUID, ext string) string {
	t.Helper()
	page, err := env.Deps.Store.ListCustomers(context.Background(), accountID, store.CustomerFilter{DataSourceUUID: dsUUID, ExternalID: ext}, 10, nil)
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("customer %s: %v %d", ext, err, len(page.Items))
	}
	return page.Items[0].UUID
}
