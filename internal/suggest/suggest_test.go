package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"spawn", "spawn", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"spawnn", "spawn", 1},   // one deletion
		{"spwan", "spawn", 2},    // a transposition is two edits
		{"gosched", "goshed", 1}, // one insertion
		{"kitten", "sitting", 3},
		{":rnuq", ":runq", 2},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
