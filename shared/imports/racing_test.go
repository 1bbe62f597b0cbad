package imports_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/model"
)

// TestWorkersRaceForExternalIDs: two json_imports of one data source, each of twenty
// customers of its own, where the i-th customers of both share an invoice external id
// (with its line item's and transaction's) and a subscription event external id. Their
// batches are applied by workers started at the same instant: each shared id ends up
// with exactly one customer, the other's status reports it failed, and the loser's
// index lists nothing it lost.
func TestWorkersRaceForExternalIDs(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	const pairs = 20
	side := func(name string) map[string]any {
		p := payload("race-"+name, pairs, 1, 1000)
		for i, raw := range p["customers"].([]any) {
			raw.(map[string]any)["external_id"] = fmt.Sprintf("%s-%d", name, i)
		}
		shared := func(kind string, i int) string { return fmt.Sprintf("shared-%s-%d", kind, i) }
		for kind, fields := range map[string][]string{"invoices": {"customer_external_id"}, "line_items": nil,
			"transactions": nil, "subscription_events": {"customer_external_id"}} {
			for i, raw := range p[kind].([]any) {
				rec := raw.(map[string]any)
				for _, field := range fields {
					rec[field] = fmt.Sprintf("%s-%d", name, i)
				}
				switch kind {
				case "invoices":
					rec["external_id"] = shared("inv", i)
				case "line_items", "transactions":
					rec["invoice_external_id"] = shared("inv", i)
					rec["external_id"] = shared(kind, i)
				case "subscription_events":
					rec["external_id"] = shared("ev", i)
					rec["subscription_external_id"] = fmt.Sprintf("%s-%d-sub", name, i)
				}
			}
		}
		for _, raw := range p["line_items"].([]any) {
			rec := raw.(map[string]any)
			rec["subscription_external_id"] = fmt.Sprintf("%s-%s-sub", name, rec["external_id"])
		}
		return p
	}
	imps := map[string]model.Import{"a": f.accept(t, side("a")), "b": f.accept(t, side("b"))}
	message := func(name string, i int) imports.Delivery {
		imp := imps[name]
		return imports.Delivery{Message: imports.Message{Version: 2, AccountID: f.acc.ID, DataSourceUUID: f.ds.UUID,
			ImportID: imp.ID, CustomerExternalID: fmt.Sprintf("%s-%d", name, i), System: f.ds.System, Currency: "USD",
			Index: i % 10, Key: "imports/" + f.acc.ID + "/" + f.ds.UUID + "/" + imp.ID + "/" + strconv.Itoa(i/10) + ".json"}}
	}
	// Four workers (two batches of ten customers per import) released together.
	var rounds [][]imports.Delivery
	for _, name := range []string{"a", "b"} {
		for batch := range pairs / 10 {
			var round []imports.Delivery
			for i := batch * 10; i < batch*10+10; i++ {
				round = append(round, message(name, i))
			}
			rounds = append(rounds, round)
		}
	}
	testenv.AtOnce(len(rounds), func(i int) {
		for _, err := range f.p.ApplyMessages(ctx, rounds[i]) {
			if err != nil {
				t.Errorf("apply: %v", err)
			}
		}
	})

	statuses := map[string]model.ImportCustomerStatus{}
	for _, imp := range imps {
		list, err := f.env.Deps.Store.ImportCustomerStatuses(ctx, f.acc.ID, imp.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range list {
			statuses[st.ExternalID] = st
		}
	}
	st := f.env.Deps.Store
	for i := range pairs {
		a, b := fmt.Sprintf("a-%d", i), fmt.Sprintf("b-%d", i)
		uuids := map[string]string{}
		for _, ext := range []string{a, b} {
			u, err := st.CustomerUUIDByExternalID(ctx, f.acc.ID, f.ds.UUID, ext)
			if err != nil {
				t.Fatalf("customer %s: %v", ext, err)
			}
			uuids[u] = ext
		}
		checks := []struct {
			name  string
			owner func() (string, error)
			kind  func(model.ImportCustomerStatus) model.KindStatus
		}{
			{"invoice", func() (string, error) {
				inv, err := st.GetInvoice(ctx, f.acc.ID, model.InvoiceUUID(f.acc.ID, f.ds.UUID, fmt.Sprintf("shared-inv-%d", i)))
				return inv.CustomerUUID, err
			}, func(s model.ImportCustomerStatus) model.KindStatus { return s.Invoices }},
			{"event", func() (string, error) {
				e, err := st.SubscriptionEventByExternalID(ctx, f.acc.ID, f.ds.UUID, fmt.Sprintf("shared-ev-%d", i))
				return e.CustomerUUID, err
			}, func(s model.ImportCustomerStatus) model.KindStatus { return s.SubscriptionEvents }},
		}
		for _, c := range checks {
			owner, err := c.owner()
			winner, ok := uuids[owner]
			if err != nil || !ok {
				t.Fatalf("pair %d: %s owned by %q (%v)", i, c.name, owner, err)
			}
			loser := a
			if winner == a {
				loser = b
			}
			if c.kind(statuses[winner]).Status != model.RecordsImported || c.kind(statuses[loser]).Status != model.RecordsFailed {
				t.Fatalf("pair %d %s: winner %+v, loser %+v", i, c.name, statuses[winner], statuses[loser])
			}
		}
		inv, _ := st.GetInvoice(ctx, f.acc.ID, model.InvoiceUUID(f.acc.ID, f.ds.UUID, fmt.Sprintf("shared-inv-%d", i)))
		for u := range uuids {
			idx, err := st.GetBillingIndex(ctx, f.acc.ID, u)
			if err != nil {
				t.Fatal(err)
			}
			if _, listed := idx.Invoices[inv.UUID]; listed != (u == inv.CustomerUUID) {
				t.Fatalf("pair %d: index of %s lists the invoice: %v (owner %s)", i, uuids[u], listed, inv.CustomerUUID)
			}
			e, _ := st.SubscriptionEventByExternalID(ctx, f.acc.ID, f.ds.UUID, fmt.Sprintf("shared-ev-%d", i))
			if _, listed := idx.Events[strconv.FormatInt(e.ID, 10)]; listed != (u == e.CustomerUUID) {
				t.Fatalf("pair %d: index of %s lists the event: %v (owner %s)", i, uuids[u], listed, e.CustomerUUID)
			}
		}
	}
}
