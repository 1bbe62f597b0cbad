package model

import (
	"strings"
	"testing"
)

func TestStripeSettingsValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*StripeSettings)
		wantErr string
	}{
		{"defaults", func(*StripeSettings) {}, ""},
		{"churn recognition follows the account", func(s *StripeSettings) { s.ChurnRecognition = "" }, ""},
		{"churn recognition overridden", func(s *StripeSettings) { s.ChurnRecognition = "churn_at_click" }, ""},
		{"refund handling overridden", func(s *StripeSettings) { s.RefundHandling = "refund_full_only" }, ""},
		{"issued invoices create subscribers", func(s *StripeSettings) { s.InvoiceHandling.Manual.CreateSubscriptionWhenInvoiceIs = "open" }, ""},
		{"unknown deleted customers", func(s *StripeSettings) { s.DeletedCustomers = "keep" }, "deleted_customers"},
		{"unknown churn recognition", func(s *StripeSettings) { s.ChurnRecognition = "never" }, "churn_recognition"},
		{"unknown refund handling", func(s *StripeSettings) { s.RefundHandling = "all" }, "refund_handling"},
		{"unknown create state", func(s *StripeSettings) { s.InvoiceHandling.Automatic.CreateSubscriptionWhenInvoiceIs = "draft" },
			"invoice_handling.automatic.create_subscription_when_invoice_is"},
		{"missing update state", func(s *StripeSettings) { s.InvoiceHandling.Manual.UpdateSubscriptionWhenInvoiceIs = "" },
			"invoice_handling.manual.update_subscription_when_invoice_is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultStripeSettings()
			tt.change(&s)
			err := s.Validate()
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr+" ")) {
				t.Fatalf("Validate() = %v, want an error naming %s", err, tt.wantErr)
			}
		})
	}
}
