package testclock

import (
	"testing"
	"time"
)

func TestClockMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		advance []time.Duration
		want    time.Time
	}{
		{"unmoved", nil, start},
		{"moved once", []time.Duration{time.Second}, start.Add(time.Second)},
		{"moved twice", []time.Duration{time.Second, time.Minute}, start.Add(time.Minute + time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := At(start)
			for _, d := range tt.advance {
				c.Advance(d)
			}
			if got := c.Now(); !got.Equal(tt.want) {
				t.Fatalf("Now() = %v, want %v", got, tt.want)
			}
		})
	}
}
