package ddbmeter

import (
	"testing"
	"time"
)

func TestInSequence(t *testing.T) {
	at := func(start, end int) span {
		t0 := time.Unix(0, 0)
		return span{start: t0.Add(time.Duration(start) * time.Millisecond), end: t0.Add(time.Duration(end) * time.Millisecond)}
	}
	tests := []struct {
		name  string
		spans []span
		want  int
	}{
		{"none", nil, 0},
		{"one after the other", []span{at(0, 5), at(5, 9), at(9, 20)}, 3},
		{"sent at once, answered one by one", []span{at(0, 5), at(0, 9), at(0, 20)}, 1},
		{"a chain beside one long request", []span{at(0, 100), at(0, 5), at(6, 10), at(11, 30)}, 3},
		{"two rounds of parallel requests", []span{at(0, 5), at(0, 7), at(8, 12), at(8, 15), at(8, 9)}, 2},
	}
	for _, tt := range tests {
		if got := inSequence(tt.spans); got != tt.want {
			t.Errorf("%s: %d in sequence, want %d", tt.name, got, tt.want)
		}
	}
}
