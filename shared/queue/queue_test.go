package queue

import "testing"

func TestID(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []string
		same bool
	}{
		{"the same parts", []string{"acc", "ds"}, []string{"acc", "ds"}, true},
		{"a boundary moved", []string{"ab", "c"}, []string{"a", "bc"}, false},
		{"a part more", []string{"a"}, []string{"a", ""}, false},
		{"another order", []string{"a", "b"}, []string{"b", "a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := ID(tc.a...), ID(tc.b...)
			if (a == b) != tc.same || len(a) != 64 {
				t.Errorf("ID(%q) = %s, ID(%q) = %s, want same %v and 64 characters", tc.a, a, tc.b, b, tc.same)
			}
		})
	}
}
