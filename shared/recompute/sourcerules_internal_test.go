package recompute

import (
	"testing"

	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
)

// TestSourceRulesMapping: a Stripe source's settings and an invoice's collection method
// reach the engine as they are.
func TestSourceRulesMapping(t *testing.T) {
	s := model.DefaultStripeSettings()
	s.ChurnRecognition, s.RefundHandling = engine.ChurnAtClick, engine.RefundFullOnly
	s.InvoiceHandling.Manual = model.InvoiceRules{CreateSubscriptionWhenInvoiceIs: "open", UpdateSubscriptionWhenInvoiceIs: "partially_paid",
		PreventSubscriptionForInvoiceWrittenOff: true}
	want := engine.SourceRules{ChurnRecognition: engine.ChurnAtClick, RefundHandling: engine.RefundFullOnly,
		Automatic: engine.InvoiceRules{CreateWhen: engine.PaymentPaid, UpdateWhen: engine.PaymentOpen, PreventVoided: true, PreventWrittenOff: true},
		Manual:    engine.InvoiceRules{CreateWhen: engine.PaymentOpen, UpdateWhen: engine.PaymentPartiallyPaid, PreventWrittenOff: true}}
	if got := sourceRules(s); got != want {
		t.Errorf("sourceRules = %+v, want %+v", got, want)
	}
	if got := engineInvoice(model.Invoice{CollectionMethod: "manual"}).CollectionMethod; got != engine.CollectionManual {
		t.Errorf("collection method %q", got)
	}
}
