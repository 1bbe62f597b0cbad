package model

import (
	"strings"
	"testing"
)

func validAccount() Account {
	return Account{ID: NewAccountID(), Name: "Acme", Currency: "EUR", TimeZone: "Europe/Berlin",
		WeekStartOn: "sunday", Settings: DefaultSettings()}
}

func TestAccountValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Account)
		errHas string
	}{
		{"valid", func(*Account) {}, ""},
		{"blank name", func(a *Account) { a.Name = "  " }, "name"},
		{"lower-case currency", func(a *Account) { a.Currency = "eur" }, "currency"},
		{"unknown currency", func(a *Account) { a.Currency = "XXY" }, "currency"},
		{"bad time zone", func(a *Account) { a.TimeZone = "Mars/Olympus" }, "time zone"},
		{"empty time zone", func(a *Account) { a.TimeZone = "" }, "time zone"},
		{"bad week start", func(a *Account) { a.WeekStartOn = "friday" }, "week start"},
		{"bad setting", func(a *Account) { a.Settings.RefundHandling = "credit" }, "refund_handling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := validAccount()
			tt.change(&a)
			err := a.Validate()
			if tt.errHas == "" && err != nil {
				t.Fatalf("unexpected %v", err)
			}
			if tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)) {
				t.Fatalf("got %v, want an error about %s", err, tt.errHas)
			}
		})
	}
}

func TestSettingsSet(t *testing.T) {
	tests := []struct {
		name, value string
		ok          bool
		check       func(Settings) bool
	}{
		{"churn_recognition", "churn_at_period_end", true, func(s Settings) bool { return s.ChurnRecognition == "churn_at_period_end" }},
		{"churn_recognition", "later", false, nil},
		{"churn_when_zero_mrr", "true", true, func(s Settings) bool { return s.ChurnWhenZeroMRR }},
		{"churn_when_zero_mrr", "yes", false, nil},
		{"auto_churn_subscription", "true", true, func(s Settings) bool { return s.AutoChurnSubscription }},
		{"refund_handling", "refund_full_only", true, func(s Settings) bool { return s.RefundHandling == "refund_full_only" }},
		{"proximate_movement_reclassification", "one_hour_reclassification", true, func(s Settings) bool {
			return s.ProximateMovementReclassification == "one_hour_reclassification"
		}},
		{"proximate_movement_reclassification", "two_hours_reclassification", false, nil},
		{"currency", "EUR", false, nil},
	}
	for _, tt := range tests {
		s := DefaultSettings()
		err := s.Set(tt.name, tt.value)
		if tt.ok != (err == nil) {
			t.Errorf("Set(%s, %s) = %v", tt.name, tt.value, err)
			continue
		}
		if tt.ok && !tt.check(s) {
			t.Errorf("Set(%s, %s) did not take effect: %+v", tt.name, tt.value, s)
		}
	}
}
