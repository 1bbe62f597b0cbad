package account_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// TestStripeSourceInvoiceHandling: with with_invoice_handling_setting, a data source
// connected to Stripe shows its own invoice handling (per collection method), its
// refunds prevented by its own refund handling or else the account's; a source not
// connected shows the account's rules; listing and retrieve alike.
func TestStripeSourceInvoiceHandling(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := env.NewAccount(t, "Stripe views")
	stripe, plain := env.NewDataSource(t, acc.ID, "Stripe"), env.NewDataSource(t, acc.ID, "Import")
	if status, body := apitest.Do(t, env.API, "PutStripeConnection", apigwtest.Call{
		PathParams: map[string]string{"data_source_uuid": stripe.UUID}, AccountID: acc.ID,
		Body: map[string]any{"webhook_secret": "whsec_views", "settings": map[string]any{"invoice_handling": map[string]any{
			"manual": map[string]any{"create_subscription_when_invoice_is": "open", "prevent_subscription_for_invoice_voided": false}}}},
	}); status != http.StatusOK {
		t.Fatalf("connect: %d %v", status, body)
	}
	flag := map[string][]string{"with_invoice_handling_setting": {"true"}}
	views := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		status, got := apitest.Do(t, env.API, "ListDataSources", apigwtest.Call{Query: flag, AccountID: acc.ID})
		if status != http.StatusOK {
			t.Fatalf("list: %d %v", status, got)
		}
		for _, ds := range got["data_sources"].([]any) {
			m := ds.(map[string]any)
			b, _ := json.Marshal(m["invoice_handling_setting"])
			out[m["uuid"].(string)] = string(b)
		}
		for uuid, listed := range out {
			status, one := apitest.Do(t, env.API, "GetDataSource", apigwtest.Call{PathParams: map[string]string{"uuid": uuid},
				Query: flag, AccountID: acc.ID})
			b, _ := json.Marshal(one["invoice_handling_setting"])
			if status != http.StatusOK || string(b) != listed {
				t.Errorf("retrieve %s: %d %s, listed %s", uuid, status, b, listed)
			}
		}
		return out
	}
	// Decoded into maps, so the keys come sorted.
	rules := func(create, update string, voided, refunded, writtenOff bool) string {
		b, _ := json.Marshal(map[string]any{"create_subscription_when_invoice_is": create, "update_subscription_when_invoice_is": update,
			"prevent_subscription_for_invoice_voided": voided, "prevent_subscription_for_invoice_refunded": refunded,
			"prevent_subscription_for_invoice_written_off": writtenOff})
		return string(b)
	}
	both := func(automatic, manual string) string {
		return `{"automatic":` + automatic + `,"manual":` + manual + `}`
	}
	accountRules := func(refunded bool) string {
		r := rules("open", "open", true, refunded, true)
		return both(r, r)
	}
	stripeRules := func(refunded bool) string {
		return both(rules("paid", "open", true, refunded, true), rules("open", "open", false, refunded, true))
	}
	patch := func(sent map[string]any) {
		t.Helper()
		if status, body := apitest.Do(t, env.API, "UpdateStripeSettings", apigwtest.Call{
			PathParams: map[string]string{"data_source_uuid": stripe.UUID}, Body: sent, AccountID: acc.ID}); status != http.StatusOK {
			t.Fatalf("PATCH: %d %v", status, body)
		}
	}
	steps := []struct {
		name          string
		change        func()
		stripe, plain string
	}{
		{"defaults", func() {}, stripeRules(false), accountRules(false)},
		{"the account prevents full refunds", func() {
			acc.Settings.RefundHandling = "refund_full_only"
			if err := env.Deps.Store.UpdateSettings(ctx, acc.ID, acc.Settings); err != nil {
				t.Fatal(err)
			}
		}, stripeRules(true), accountRules(true)},
		{"the source ignores refunds", func() { patch(map[string]any{"refund_handling": "refund_ignore"}) }, stripeRules(false), accountRules(true)},
		{"the source follows the account again", func() { patch(map[string]any{"refund_handling": nil}) }, stripeRules(true), accountRules(true)},
		{"disconnected", func() {
			if status, body := apitest.Do(t, env.API, "DeleteStripeConnection", apigwtest.Call{
				PathParams: map[string]string{"data_source_uuid": stripe.UUID}, AccountID: acc.ID}); status != http.StatusNoContent {
				t.Fatalf("disconnect: %d %v", status, body)
			}
		}, accountRules(true), accountRules(true)},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.change()
			got := views()
			if got[stripe.UUID] != s.stripe {
				t.Errorf("Stripe source: %s\nwant %s", got[stripe.UUID], s.stripe)
			}
			if got[plain.UUID] != s.plain {
				t.Errorf("other source: %s\nwant %s", got[plain.UUID], s.plain)
			}
		})
	}
}
