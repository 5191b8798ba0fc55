package runtime

import "testing"

// ParseDuration takes plain integers as nanoseconds and anything else as
// time.ParseDuration does.
func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"250", 250, true},
		{"+7", 7, true},
		{"-3", -3, true},
		{"1us", 1000, true},
		{"1.5ms", 1_500_000, true},
		{"2h", 2 * 3600 * 1e9, true},
		{"-1s", -1e9, true},
		{"99999999999999999999", 0, false}, // out of range as an integer, no unit as a duration
		{"", 0, false},
		{"+", 0, false},
		{"ms", 0, false},
		{"1x", 0, false},
	} {
		got, err := ParseDuration(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { ParseDuration("1us") }); n != 0 {
		t.Errorf("ParseDuration(\"1us\") allocates %.0f times", n)
	}
}
