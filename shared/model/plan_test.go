package model

import (
	"encoding/json"
	"testing"
)

func TestParseIntervalCount(t *testing.T) {
	tests := []struct {
		in      any
		want    int
		wantErr string
	}{
		{1.0, 1, ""},
		{json.Number("12"), 12, ""},
		{" 7 ", 7, ""},
		{nil, 0, MsgNotANumber},
		{"seven", 0, MsgNotANumber},
		{true, 0, MsgNotANumber},
		{0.0, 0, MsgMustBePositive},
		{-3.0, 0, MsgMustBePositive},
		{2.5, 0, MsgMustBeInteger},
		{"NaN", 0, MsgNotANumber},
		{3e9, 0, MsgIntervalTooLarge},
	}
	for _, tt := range tests {
		got, err := ParseIntervalCount(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%#v: error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%#v: %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestPlanHelpers(t *testing.T) {
	for u, ok := range map[string]bool{"day": true, "month": true, "year": true, "week": false, "Month": false, "": false} {
		if ValidIntervalUnit(u) != ok {
			t.Errorf("ValidIntervalUnit(%q) = %v", u, !ok)
		}
	}
	if got := DefaultPlanExternalID("pl_1184b750-5905-013c-13b1-46813c1ddd3d"); got != "1184b750-5905-013c-13b1-46813c1ddd3d" {
		t.Errorf("default external id %q", got)
	}
	if SystemFilter("Custom") != SystemImportAPI || SystemFilter("Stripe") != "Stripe" {
		t.Error("SystemFilter")
	}
	if _, err := ValidPlanName("   "); err == nil || err.Error() != MsgPlanName {
		t.Errorf("blank name: %v", err)
	}
	if n, err := ValidPlanName("  Gold "); err != nil || n != "Gold" {
		t.Errorf("trim: %q %v", n, err)
	}
}
