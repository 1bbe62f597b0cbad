package recompute_test

import (
	"context"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/model"
)

// TestRecomputeAppliesStripeSettings: a customer's metrics follow its data source's own
// settings, read from the source's Stripe connection at every recomputation; a source
// without a connection (or whose connection names another account) counts an invoice
// once issued.
func TestRecomputeAppliesStripeSettings(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-01-15T00:00:00Z"), false)
	f.AddInvoices(recomputetest.Invoice{Ext: "inv-1", Start: recomputetest.At("2024-01-01T00:00:00Z"), Amount: 1000})
	ctx := context.Background()
	connect := func(accountID string, change func(*model.StripeSettings)) {
		t.Helper()
		recomputetest.Must(t, f.D.Store.DeleteStripeConnection(ctx, f.Acc.ID, f.DS.UUID))
		if accountID == "" {
			return
		}
		s := model.DefaultStripeSettings()
		change(&s)
		recomputetest.Must(t, f.D.Store.PutStripeConnection(ctx, model.StripeConnection{AccountID: accountID, DataSourceUUID: f.DS.UUID,
			SealedWebhookSecret: []byte{1}, Settings: s, ConnectedAt: f.D.Now(), UpdatedAt: f.D.Now()}))
	}
	defaults := func(*model.StripeSettings) {}
	tests := []struct {
		name       string
		account    string // the connection's account; "" for none
		change     func(*model.StripeSettings)
		status     string
		mrr        int64
		disconnect bool
	}{
		{"not connected: the unpaid invoice counts once issued", "", nil, "Active", 1000, false},
		{"connected with the defaults: created only when paid", f.Acc.ID, defaults, model.StatusNewLead, 0, false},
		{"created when issued", f.Acc.ID, func(s *model.StripeSettings) { s.InvoiceHandling.Automatic.CreateSubscriptionWhenInvoiceIs = "open" }, "Active", 1000, false},
		{"another account's connection is not applied", "acc_other", defaults, "Active", 1000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			connect(tt.account, tt.change)
			out, cost := f.Run()
			if out.Status != tt.status || out.MRR != tt.mrr {
				t.Fatalf("outcome %+v, want %s %d", out, tt.status, tt.mrr)
			}
			t.Logf("%d GetItem, %s", cost.Requests["GetItem"], cost)
			if tt.disconnect {
				// The other account's item is removed by its own account.
				recomputetest.Must(t, f.D.Store.DeleteStripeConnection(ctx, tt.account, f.DS.UUID))
			}
		})
	}
}
