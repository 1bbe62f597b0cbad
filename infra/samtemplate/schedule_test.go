package samtemplate

import (
	"testing"
	"time"
)

func TestParseScheduleExpression(t *testing.T) {
	tests := []struct {
		expr    string
		want    time.Duration
		wantErr bool
	}{
		{"rate(1 minute)", time.Minute, false},
		{"rate(5 minutes)", 5 * time.Minute, false},
		{"rate(1 hour)", time.Hour, false},
		{"rate(12 hours)", 12 * time.Hour, false},
		{"rate(1 day)", 24 * time.Hour, false},
		{"rate(7 days)", 7 * 24 * time.Hour, false},
		{"cron(0/5 * * * ? *)", 0, false},
		{"at(2030-01-02T03:04:05)", 0, false},
		{"rate(1 minutes)", 0, true},
		{"rate(2 minute)", 0, true},
		{"rate(-1 minutes)", 0, true},
		{"rate(1.5 hours)", 0, true},
		{"rate(5)", 0, true},
		{"rate(5 minutes", 0, true},
		{"cron(* * * * *)", 0, true},
		{"at(tomorrow)", 0, true},
		{"every(5 minutes)", 0, true},
		{"", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := parseScheduleExpression(tc.expr)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("parseScheduleExpression(%q) = %v, %v; want %v, error %v", tc.expr, got, err, tc.want, tc.wantErr)
			}
		})
	}
}
