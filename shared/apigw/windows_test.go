package apigw

import (
	"strconv"
	"testing"
)

// TestWindowsHoldOneSecond: the gate's memory holds the accounts of the latest second
// only, at most maxWindows of them, and a late answer for an earlier second is dropped.
func TestWindowsHoldOneSecond(t *testing.T) {
	const second = 1_772_366_400
	fill := func(w *windows, n int) {
		for i := range n {
			w.open("acc_"+strconv.Itoa(i), second)
		}
	}
	tests := []struct {
		name string
		do   func(w *windows)
		// wantHeld is how many accounts are remembered afterwards; account is then opened
		// in second and wantOpened is whether it was already.
		wantHeld   int
		account    string
		wantOpened bool
	}{
		{name: "accounts of one second", do: func(w *windows) { fill(w, 3) }, wantHeld: 3, account: "acc_1", wantOpened: true},
		{name: "at most maxWindows accounts", do: func(w *windows) { fill(w, maxWindows+5) }, wantHeld: maxWindows,
			account: "acc_" + strconv.Itoa(maxWindows+1)},
		{name: "an account past the bound is not remembered by its answer either", do: func(w *windows) {
			fill(w, maxWindows)
			w.record("acc_new", second, 41)
		}, wantHeld: maxWindows, account: "acc_new"},
		{name: "a new second forgets the earlier one", do: func(w *windows) {
			fill(w, 100)
			w.open("acc_x", second+1)
		}, wantHeld: 1, account: "acc_1"},
		{name: "a late answer for an earlier second is dropped", do: func(w *windows) {
			w.open("acc_x", second+1)
			w.record("acc_1", second, 50)
		}, wantHeld: 1, account: "acc_x", wantOpened: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &windows{}
			tt.do(w)
			if len(w.counts) != tt.wantHeld {
				t.Fatalf("%d accounts remembered, want %d", len(w.counts), tt.wantHeld)
			}
			if _, opened := w.open(tt.account, w.current); opened != tt.wantOpened {
				t.Fatalf("%s opened %v, want %v", tt.account, opened, tt.wantOpened)
			}
		})
	}
}
