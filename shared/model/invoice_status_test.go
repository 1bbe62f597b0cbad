package model

import "testing"

func TestInvoiceStatusTransitionAllowed(t *testing.T) {
	tests := []struct {
		from, to string
		want     bool
	}{
		{"", InvoiceVoided, true},
		{"", InvoiceWrittenOff, true},
		{InvoiceWrittenOff, InvoiceVoided, true},
		{InvoiceVoided, InvoiceVoided, true},
		{InvoiceWrittenOff, InvoiceWrittenOff, true},
		{InvoiceVoided, InvoiceWrittenOff, false},
		{InvoiceVoided, "", false},
		{InvoiceWrittenOff, "", false},
		{"", "paid", false},
		{"", "", true},
	}
	for _, tt := range tests {
		if got := InvoiceStatusTransitionAllowed(tt.from, tt.to); got != tt.want {
			t.Errorf("%q -> %q = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
	for s, want := range map[string]bool{InvoiceVoided: true, InvoiceWrittenOff: true, "": false, "open": false, "VOIDED": false} {
		if got := ValidInvoiceStatus(s); got != want {
			t.Errorf("ValidInvoiceStatus(%q) = %v", s, got)
		}
	}
}
