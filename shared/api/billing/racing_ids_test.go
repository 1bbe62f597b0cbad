package billing_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
)

// racingPairs is how many pairs of customers race for one external id per case.
const racingPairs = 20

// TestRacingExternalIDs: two customers of one data source send their invoices at the
// same instant (every request of a case released together), each pair sharing one
// external id: of an invoice, a line item, a transaction or a subscription. Exactly
// one of each pair is accepted (201) and holds the id; the other is the 422 a customer
// coming second gets, in the family-B shape; no record is stored twice, and the
// loser's index does not list what it lost.
func TestRacingExternalIDs(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Race")
	ctx := context.Background()
	ds := env.NewDataSource(t, acc.ID, "Billing")
	seed := apitest.FiftyCustomers("race")
	for _, kind := range []string{"invoices", "line_items", "transactions", "subscription_events"} {
		seed[kind] = []any{}
	}
	if status, body := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{PathParams: map[string]string{"data_source_uuid": ds.UUID}, Body: seed,
		AccountID: acc.ID}); status != http.StatusOK {
		t.Fatalf("import: %d %v", status, body)
	}
	env.DrainImports(t)
	customers := make([]string, 2*racingPairs)
	for i := range customers {
		customers[i] = apitest.CustomerByExternalID(t, env, acc.ID, ds.UUID, fmt.Sprintf("c%02d", i))
	}
	plan, err := env.Deps.Store.GetPlanByExternalID(ctx, acc.ID, ds.UUID, "p1")
	if err != nil {
		t.Fatal(err)
	}

	// invoice builds the invoice one side of a pair sends; its external ids are the
	// side's own unless shared says which one both sides use.
	invoice := func(c, pair, side int, shared string) map[string]any {
		id := func(kind string) string {
			if kind == shared {
				return fmt.Sprintf("%s-%s-%d", c2s(c), kind, pair)
			}
			return fmt.Sprintf("%s-%s-%d-%d", c2s(c), kind, pair, side)
		}
		return map[string]any{"external_id": id("inv"), "date": "2024-03-01", "currency": "USD", "data_source_uuid": ds.UUID,
			"line_items": []any{map[string]any{"type": "subscription", "external_id": id("li"), "subscription_external_id": id("sub"),
				"plan_uuid": plan.UUID, "service_period_start": "2024-03-01", "service_period_end": "2024-04-01", "amount_in_cents": 1000}},
			"transactions": []any{map[string]any{"type": "payment", "result": "successful", "date": "2024-03-02", "external_id": id("tr")}}}
	}
	cases := []struct {
		shared  string // which external id the pair shares
		message string // the loser's 422 message, %s the shared id
	}{
		{"inv", `Invoice \"%s\" belongs to another customer`},
		{"li", `Line item external id \"%s\" is used by another invoice of this data source`},
		{"tr", `Transaction external id \"%s\" is used by another invoice of this data source`},
		{"sub", `Subscription \"%s\" belongs to another customer`},
	}
	for n, tc := range cases {
		t.Run(tc.shared, func(t *testing.T) {
			c := n // a case's ids are its own: c2s(c) prefixes them
			invoices := make([]map[string]any, 2*racingPairs)
			statuses, bodies := raceAll(t, env.API, "ImportCustomerInvoices", 2*racingPairs, func(i int) apigwtest.Call {
				invoices[i] = invoice(c, i/2, i%2, tc.shared)
				return apigwtest.Call{PathParams: map[string]string{"customer_uuid": customers[i]}, AccountID: acc.ID,
					Body: map[string]any{"invoices": []any{invoices[i]}}}
			})
			for pair := range racingPairs {
				a, b := 2*pair, 2*pair+1
				winner, loser := a, b
				if statuses[a] != http.StatusCreated {
					winner, loser = b, a
				}
				sharedID := fmt.Sprintf("%s-%s-%d", c2s(c), tc.shared, pair)
				msg := fmt.Sprintf(tc.message, sharedID)
				want := `{"error":"` + msg + `","error_details":[{"param":"invoices","code":"invalid","message":"` + msg + `"}]}`
				if statuses[winner] != http.StatusCreated || statuses[loser] != http.StatusUnprocessableEntity || bodies[loser] != want {
					t.Fatalf("pair %d: %d %s / %d %s, want one 201 and one 422 %s", pair, statuses[a], bodies[a], statuses[b], bodies[b], want)
				}
				checkHeldOnce(t, env, acc.ID, ds.UUID, tc.shared, invoices[winner], invoices[loser], customers[winner], customers[loser])
			}
		})
	}
}

func c2s(c int) string { return fmt.Sprintf("k%d", c) }

// raceAll builds n calls, then sends them all at the same instant (testenv.AtOnce) and
// returns their statuses and bodies, in order.
func raceAll(t *testing.T, d *api.Deps, operation string, n int, call func(i int) apigwtest.Call) ([]int, []string) {
	statuses, bodies := make([]int, n), make([]string, n)
	calls := make([]apigwtest.Call, n)
	for i := range n {
		calls[i] = call(i)
	}
	testenv.AtOnce(n, func(i int) {
		resp := apitest.Raw(t, d, operation, calls[i])
		statuses[i], bodies[i] = resp.StatusCode, resp.Body
	})
	return statuses, bodies
}

// TestRacingSubscriptionEventExternalIDs: two customers create, at the same instant, a
// subscription event with one external id, twenty pairs: one 201, the other the 422
// family-B body of a used external id, one event stored, listed by the winner's index
// alone.
func TestRacingSubscriptionEventExternalIDs(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Race events")
	ctx := context.Background()
	_, ds := apitest.ImportedCustomer(t, env, acc.ID)
	seed := apitest.FiftyCustomers("more")
	for _, kind := range []string{"invoices", "line_items", "transactions", "subscription_events"} {
		seed[kind] = []any{}
	}
	seed["customers"] = seed["customers"].([]any)[1 : 2*racingPairs+1]
	if status, body := apitest.Do(t, env.API, "CreateJsonImport", apigwtest.Call{PathParams: map[string]string{"data_source_uuid": ds.UUID}, Body: seed,
		AccountID: acc.ID}); status != http.StatusOK {
		t.Fatalf("import: %d %v", status, body)
	}
	env.DrainImports(t)
	statuses, bodies := raceAll(t, env.API, "CreateSubscriptionEvent", 2*racingPairs, func(i int) apigwtest.Call {
		return apigwtest.Call{AccountID: acc.ID,
			Body: map[string]any{"subscription_event": map[string]any{"data_source_uuid": ds.UUID,
				"customer_external_id": fmt.Sprintf("c%02d", i+1), "event_type": "subscription_cancelled",
				"event_date": "2024-05-01", "effective_date": "2024-05-01", "subscription_external_id": fmt.Sprintf("s-%d", i),
				"external_id": fmt.Sprintf("ev-%d", i/2)}}}
	})
	for pair := range racingPairs {
		a, b := 2*pair, 2*pair+1
		winner, loser := a, b
		if statuses[a] != http.StatusCreated {
			winner, loser = b, a
		}
		msg := fmt.Sprintf(`external_id \"ev-%d\" has already been taken`, pair)
		want := `{"error":"` + msg + `","error_details":[{"param":"external_id","code":"invalid","message":"` + msg + `"}]}`
		if statuses[winner] != http.StatusCreated || statuses[loser] != http.StatusUnprocessableEntity || bodies[loser] != want {
			t.Fatalf("pair %d: %d %s / %d %s, want one 201 and one 422 %s", pair, statuses[a], bodies[a], statuses[b], bodies[b], want)
		}
		ev, err := env.Deps.Store.SubscriptionEventByExternalID(ctx, acc.ID, ds.UUID, fmt.Sprintf("ev-%d", pair))
		if err != nil {
			t.Fatal(err)
		}
		for i, listedWant := range map[int]bool{winner: true, loser: false} {
			cus := apitest.CustomerByExternalID(t, env, acc.ID, ds.UUID, fmt.Sprintf("c%02d", i+1))
			idx, err := env.Deps.Store.GetBillingIndex(ctx, acc.ID, cus)
			if err != nil {
				t.Fatal(err)
			}
			if _, listed := idx.Events[fmt.Sprint(ev.ID)]; listed != listedWant || listedWant != (ev.CustomerUUID == cus) {
				t.Fatalf("pair %d: customer c%02d lists the event: %v, owner %s", pair, i+1, listed, ev.CustomerUUID)
			}
		}
	}
}

// checkHeldOnce checks that the winner's records hold the shared id, and that nothing
// of the loser's does, in the store and in the loser's index.
func checkHeldOnce(t *testing.T, env *testenv.Env, accountID, dsUUID, shared string, winner, loser map[string]any, winnerUUID, loserUUID string) {
	t.Helper()
	ctx := context.Background()
	st := env.Deps.Store
	invUUID := func(inv map[string]any) string {
		return model.InvoiceUUID(accountID, dsUUID, inv["external_id"].(string))
	}
	first := func(inv map[string]any, list string) map[string]any { return inv[list].([]any)[0].(map[string]any) }
	winInv, err := st.GetInvoice(ctx, accountID, invUUID(winner))
	if err != nil || winInv.CustomerUUID != winnerUUID || len(winInv.LineItems) != 1 || len(winInv.Transactions) != 1 {
		t.Fatalf("winner's invoice %+v %v", winInv, err)
	}
	loserIdx, err := st.GetBillingIndex(ctx, accountID, loserUUID)
	if err != nil {
		t.Fatal(err)
	}
	subUUID := model.SubscriptionUUID(accountID, dsUUID, first(winner, "line_items")["subscription_external_id"].(string))
	if sub, err := st.GetSubscription(ctx, accountID, subUUID); err != nil || sub.CustomerUUID != winnerUUID {
		t.Fatalf("winner's subscription %+v %v", sub, err)
	}
	switch shared {
	case "inv":
		if _, listed := loserIdx.Invoices[winInv.UUID]; listed {
			t.Fatalf("the loser's index lists the invoice it lost: %v", loserIdx.Invoices)
		}
		if len(loserIdx.Invoices) != 0 || len(loserIdx.Subscriptions) != 0 || len(loserIdx.Plans) != 0 {
			t.Fatalf("the loser's index keeps what it lost: %+v", loserIdx)
		}
		return
	case "sub":
		if _, listed := loserIdx.Subscriptions[subUUID]; listed {
			t.Fatalf("the loser's index lists the subscription it lost: %v", loserIdx.Subscriptions)
		}
	}
	lost, err := st.GetInvoice(ctx, accountID, invUUID(loser))
	if err != nil || lost.CustomerUUID != loserUUID {
		t.Fatalf("loser's invoice %+v %v", lost, err)
	}
	var sharedRecord string
	switch shared {
	case "li", "sub":
		sharedRecord = winInv.LineItems[0].UUID
		if len(lost.LineItems) != 0 {
			t.Fatalf("the loser's invoice holds the line item it lost: %+v", lost.LineItems)
		}
	case "tr":
		sharedRecord = winInv.Transactions[0].UUID
		if len(lost.Transactions) != 0 {
			t.Fatalf("the loser's invoice holds the transaction it lost: %+v", lost.Transactions)
		}
	}
	if holder, err := st.InvoiceOfRecord(ctx, accountID, sharedRecord); err != nil || holder.UUID != winInv.UUID {
		t.Fatalf("record %s held by %s (%v), want %s", sharedRecord, holder.UUID, err, winInv.UUID)
	}
}
